/**
 * Readiness of this process, written once for both listeners: `/healthz` on the API and on the ops listener
 * (runtime/ops-server.ts) answer the same body from the same checks, in the same order, within the same time
 * cap (review 2, 3.5). 503 while shutting down, when the shared queue does not answer, or when the data
 * directory is low on free space (new work would fail with 507). The sandbox mode is reported so an operator
 * sees a process that runs tools unconfined.
 */
import { type Static, Type } from '#typebox';
import type { DiskSpace } from '../files/disk-space.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { SandboxMode } from '../processors/shared/sandbox.ts';

const DiskSchema = Type.Object({ freeBytes: Type.Number(), minFreeBytes: Type.Number() });
const SandboxSchema = Type.Union([Type.Literal('bwrap'), Type.Literal('off')], {
  description: 'How external tools are isolated: bwrap (bubblewrap sandbox) or off (PRESSO_SANDBOX=off)',
});

/** The one body of `/healthz`, on either listener (and in the OpenAPI document). */
export const ReadinessSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('shutting-down')]),
  reason: Type.Optional(Type.Union([Type.Literal('low-disk'), Type.Literal('queue-unreachable')])),
  queued: Type.Optional(Type.Number()),
  disk: Type.Optional(DiskSchema),
  sandbox: SandboxSchema,
});

export type Readiness = Static<typeof ReadinessSchema>;

export interface ReadinessDeps {
  queue: Pick<JobQueue, 'size'>;
  diskSpace: { check(): Promise<DiskSpace> };
  isShuttingDown: () => boolean;
  /** The isolation of external tools in force (`PRESSO_SANDBOX`). */
  sandbox: SandboxMode;
}

/** How long readiness waits for the queue's answer: a probe must answer, so a silent queue is unreachable. */
export const QUEUE_PROBE_MS = 2000;

export async function readiness(deps: ReadinessDeps): Promise<Readiness> {
  const { sandbox } = deps;
  if (deps.isShuttingDown()) return { status: 'shutting-down', sandbox };
  const { freeBytes, minFreeBytes, low } = await deps.diskSpace.check();
  const disk = { freeBytes, minFreeBytes };
  // In scaled mode the queue is Redis: a process that cannot reach it must not get new work.
  const queued = await queueSize(deps.queue);
  if (queued === undefined) return { status: 'degraded', reason: 'queue-unreachable', disk, sandbox };
  if (low) return { status: 'degraded', reason: 'low-disk', queued, disk, sandbox };
  return { status: 'ok', queued, disk, sandbox };
}

/** The HTTP status a readiness answer goes with. */
export function readinessStatus(answer: Readiness): 200 | 503 {
  return answer.status === 'ok' ? 200 : 503;
}

async function queueSize(queue: Pick<JobQueue, 'size'>): Promise<number | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), QUEUE_PROBE_MS);
  });
  try {
    return await Promise.race([queue.size().catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
