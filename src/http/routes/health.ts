/**
 * Probes for load balancers and orchestrators. `GET /healthz` is readiness: 503 while shutting down
 * or while the data directory is low on free space (new work would fail with 507), so a balancer
 * stops sending. `GET /livez` is liveness: 200 while the process answers at all; restarting a
 * process because its disk is full would not free a byte, and its accepted jobs resume on their own.
 */
import type { FastifyInstance } from 'fastify';
import type { DiskSpace } from '../../files/disk-space.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';

export interface HealthRouteOptions {
  queue: JobQueue;
  diskSpace: { check(): Promise<DiskSpace> };
  isShuttingDown: () => boolean;
}

export async function healthRoute(app: FastifyInstance, options: HealthRouteOptions) {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Readiness: 200 ok; 503 shutting-down, or degraded with reason low-disk',
        hide: false,
      },
    },
    async (_request, reply) => {
      if (options.isShuttingDown()) return reply.code(503).send({ status: 'shutting-down' });
      const { freeBytes, minFreeBytes, low } = await options.diskSpace.check();
      const disk = { freeBytes, minFreeBytes };
      // In scaled mode the queue is Redis: a process that cannot reach it must not get new work.
      const queued = await options.queue.size().catch(() => undefined);
      if (queued === undefined)
        return reply.code(503).send({ status: 'degraded', reason: 'queue-unreachable', disk });
      if (low) return reply.code(503).send({ status: 'degraded', reason: 'low-disk', queued, disk });
      return { status: 'ok', queued, disk };
    },
  );
  app.get('/livez', { schema: { summary: 'Liveness: 200 while the process answers' } }, async () => ({
    status: 'ok',
  }));
}
