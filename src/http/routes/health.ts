/**
 * Probes for load balancers and orchestrators. `GET /healthz` is readiness: 503 while shutting down
 * or while the data directory is low on free space (new work would fail with 507), so a balancer
 * stops sending. `GET /livez` is liveness: 200 while the process answers at all; restarting a
 * process because its disk is full would not free a byte, and its accepted jobs resume on their own.
 * Readiness also says how external tools are isolated (`sandbox`), so an operator sees a process that
 * runs them unconfined. The ops listener answers the same (../readiness.ts).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '#typebox';
import { type ReadinessDeps, ReadinessSchema, readiness, readinessStatus } from '../readiness.ts';

export type HealthRouteOptions = ReadinessDeps;

export async function healthRoute(app: FastifyInstance, options: HealthRouteOptions) {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['Health'],
        summary: 'Readiness: 200 ok; 503 shutting-down, or degraded with reason low-disk',
        hide: false,
        response: { 200: ReadinessSchema, 503: ReadinessSchema },
      },
    },
    async (_request, reply) => {
      const answer = await readiness(options);
      return reply.code(readinessStatus(answer)).send(answer);
    },
  );
  app.get(
    '/livez',
    {
      schema: {
        operationId: 'getLiveness',
        tags: ['Health'],
        summary: 'Liveness: 200 while the process answers',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({
      status: 'ok',
    }),
  );
}
