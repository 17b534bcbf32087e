/**
 * A reverse proxy in front of a started server, as a load balancer is: plain HTTP on 127.0.0.1, forwarding
 * every request to the server over HTTPS (its self-signed certificate trusted), except those the test
 * plans to fail: the next N requests whose path starts with a prefix are answered with a 5xx and an HTML
 * page of the proxy's own (the server never sees them), as a proxy does while a backend restarts.
 */
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';

export interface PlannedFailure {
  /** Requests whose path starts with this (and, if given, of this method) fail. */
  pathPrefix: string;
  method?: string;
  status: number;
  /** How many such requests fail before they are forwarded again. */
  times: number;
  headers?: Record<string, string>;
}

export interface ProxySeen {
  method: string;
  path: string;
  /** The status the client got: the planned failure's, or the server's. */
  status: number;
  failed: boolean;
}

export interface FlakyProxy {
  origin: string;
  seen: ProxySeen[];
  fail(plan: PlannedFailure): void;
  /** Drops the failures still planned: everything is forwarded again. */
  clear(): void;
  close(): Promise<void>;
}

export async function startFlakyProxy(target: string, ca: string): Promise<FlakyProxy> {
  const upstream = new URL(target);
  const agent = new https.Agent({ ca, keepAlive: true });
  const plans: PlannedFailure[] = [];
  const seen: ProxySeen[] = [];
  const server = http.createServer((req, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const plan = plans.find(
      (p) => p.times > 0 && path.startsWith(p.pathPrefix) && (!p.method || p.method === method),
    );
    if (plan) {
      plan.times--;
      seen.push({ method, path, status: plan.status, failed: true });
      // Drain the body first, so the client is not cut off mid-upload.
      req.resume();
      req.once('end', () => {
        res
          .writeHead(plan.status, { 'content-type': 'text/html', ...plan.headers })
          .end(
            `<html><body><h1>${plan.status} Service Unavailable</h1>proxy: backend restarting</body></html>`,
          );
      });
      return;
    }
    const forwarded = https.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method,
        path,
        headers: { ...req.headers, host: upstream.host },
        agent,
      },
      (answer) => {
        seen.push({ method, path, status: answer.statusCode ?? 0, failed: false });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.writeHead(502).end());
    req.pipe(forwarded);
  });
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as net.AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    fail: (plan) => plans.push({ ...plan }),
    clear: () => {
      plans.length = 0;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
