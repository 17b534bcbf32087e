/**
 * Probes for load balancers and orchestrators. `GET /healthz` is readiness: 503 while shutting down
 * or while the data directory is low on free space (new work would fail with 507), so a balancer
 * stops sending. `GET /livez` is liveness: 200 while the process answers at all; restarting a
 * process because its disk is full would not free a byte, and its accepted jobs resume on their own.
 * Readiness also says how external tools are isolated (`sandbox`), so an operator sees a process that
 * runs them unconfined.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { DiskSpace } from '../../files/disk-space.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { SandboxMode } from '../../processors/shared/sandbox.ts';

export interface HealthRouteOptions {
  queue: JobQueue;
  diskSpace: { check(): Promise<DiskSpace> };
  isShuttingDown: () => boolean;
  /** The isolation of external tools in force (`PRESSO_SANDBOX`). */
  sandbox: SandboxMode;
}

const DiskSchema = Type.Object({ freeBytes: Type.Number(), minFreeBytes: Type.Number() });
const SandboxSchema = Type.Union([Type.Literal('bwrap'), Type.Literal('off')], {
  description: 'How external tools are isolated: bwrap (bubblewrap sandbox) or off (PRESSO_SANDBOX=off)',
});

const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('shutting-down')]),
  reason: Type.Optional(Type.Union([Type.Literal('low-disk'), Type.Literal('queue-unreachable')])),
  queued: Type.Optional(Type.Number()),
  disk: Type.Optional(DiskSchema),
  sandbox: SandboxSchema,
});

export async function healthRoute(app: FastifyInstance, options: HealthRouteOptions) {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['Health'],
        summary: 'Readiness: 200 ok; 503 shutting-down, or degraded with reason low-disk',
        hide: false,
        response: { 200: HealthSchema, 503: HealthSchema },
      },
    },
    async (_request, reply) => {
      const { sandbox } = options;
      if (options.isShuttingDown()) return reply.code(503).send({ status: 'shutting-down', sandbox });
      const { freeBytes, minFreeBytes, low } = await options.diskSpace.check();
      const disk = { freeBytes, minFreeBytes };
      // In scaled mode the queue is Redis: a process that cannot reach it must not get new work.
      const queued = await options.queue.size().catch(() => undefined);
      if (queued === undefined)
        return reply.code(503).send({ status: 'degraded', reason: 'queue-unreachable', disk, sandbox });
      if (low) return reply.code(503).send({ status: 'degraded', reason: 'low-disk', queued, disk, sandbox });
      return { status: 'ok', queued, disk, sandbox };
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
