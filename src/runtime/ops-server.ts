/**
 * The operations listener: plain HTTP on `PRESSO_METRICS_PORT`, apart from the API (scrapers and probes
 * stay inside the cluster network, and a worker process, which has no API, still answers them).
 * `GET /metrics` is Prometheus text; `GET /healthz` is readiness for the process's role (503 while it
 * shuts down, when the data directory is low on disk, or when the shared queue cannot be reached), the
 * same answer as the API's (../http/readiness.ts);
 * `GET /livez` answers while the process does.
 */
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { type Readiness, readinessStatus } from '../http/readiness.ts';
import type { ServiceMetrics } from './metrics.ts';

export interface OpsServerOptions {
  metrics: ServiceMetrics;
  /** Readiness, the same answer as the API's `/healthz` (http/readiness.ts). */
  readiness(): Promise<Readiness>;
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
        const answer = await options.readiness();
        return send(readinessStatus(answer), 'application/json', `${JSON.stringify(answer)}\n`);
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
