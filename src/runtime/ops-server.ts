/**
 * The operations listener: plain HTTP on `PRESSO_METRICS_PORT`, apart from the API (scrapers and probes
 * stay inside the cluster network, and a worker process, which has no API, still answers them).
 * `GET /metrics` is Prometheus text; `GET /healthz` is readiness for the process's role (503 while it
 * shuts down, when the data directory is low on disk, or when the shared queue cannot be reached), with
 * the isolation of external tools (`sandbox`);
 * `GET /livez` answers while the process does.
 */
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { ServiceMetrics } from './metrics.ts';

export interface OpsServerOptions {
  metrics: ServiceMetrics;
  /** Readiness: undefined when ready, else the reason (`shutting-down`, `low-disk`, `queue-unreachable`). */
  notReady(): Promise<string | undefined>;
  /** The isolation of external tools (`PRESSO_SANDBOX`), reported with readiness. */
  sandbox: string;
  logger: Logger;
}

export async function startOpsServer(host: string, port: number, options: OpsServerOptions): Promise<Server> {
  const server = createServer((request, response) => {
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    const path = (request.url ?? '/').split('?')[0];
    const answer = async () => {
      if (request.method !== 'GET') return send(405, 'text/plain', 'method not allowed\n');
      if (path === '/metrics')
        return send(200, options.metrics.registry.contentType, await options.metrics.text());
      if (path === '/livez') return send(200, 'application/json', '{"status":"ok"}\n');
      if (path === '/healthz') {
        const reason = await options.notReady();
        const { sandbox } = options;
        return reason === undefined
          ? send(200, 'application/json', `${JSON.stringify({ status: 'ok', sandbox })}\n`)
          : send(503, 'application/json', `${JSON.stringify({ status: 'degraded', reason, sandbox })}\n`);
      }
      return send(404, 'text/plain', 'not found\n');
    };
    answer().catch((error: unknown) => {
      options.logger.error({ err: error }, 'ops listener failed to answer');
      if (!response.headersSent) send(500, 'text/plain', 'error\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
