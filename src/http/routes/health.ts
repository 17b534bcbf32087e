/** GET /healthz: liveness and a glimpse of the queue, for load balancers and orchestrators. */
import type { FastifyInstance } from 'fastify';
import type { JobQueue } from '../../jobs/job-queue.ts';

export async function healthRoute(
  app: FastifyInstance,
  options: { queue: JobQueue; isShuttingDown: () => boolean },
) {
  app.get('/healthz', { schema: { summary: 'Health check', hide: false } }, async (_request, reply) => {
    if (options.isShuttingDown()) return reply.code(503).send({ status: 'shutting-down' });
    return { status: 'ok', queued: await options.queue.size() };
  });
}
