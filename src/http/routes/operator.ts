/**
 * The operator's fleet view (role operator, dashboard session only): every account with its limit, usage and
 * state; creating one (with an invite for its first owner); changing its limit or disabling it; and an
 * overview of the queue per lane, this process's workers, the running jobs grouped by the worker that claimed
 * them (every process's, from the job store), the data disk and the job and webhook totals from the Prometheus
 * metrics.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '#typebox';
import type { AccountService } from '../../accounts/account-service.ts';
import type { Account } from '../../accounts/account-store.ts';
import type { DiskSpaceMonitor } from '../../files/disk-space.ts';
import type { Job } from '../../jobs/job.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { JobStore } from '../../jobs/job-store.ts';
import type { UserService } from '../../users/user-service.ts';
import { commonErrors, ErrorSchema } from '../schemas.ts';

const TAGS = ['Operator'];
const OPERATOR = { auth: 'session', role: 'operator' } as const;
const iso = (ms: number) => new Date(ms).toISOString();

const UsageSchema = Type.Object({
  requests: Type.Integer(),
  jobs: Type.Integer(),
  bytesIn: Type.Integer(),
  bytesOut: Type.Integer(),
});

const OperatorAccountSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    rateLimit: Type.Integer({ description: 'Requests per rate-limit window.' }),
    disabled: Type.Boolean(),
    usage: UsageSchema,
  },
  { title: 'OperatorAccount' },
);

/** The operator's view of running jobs stops here: a fleet running more than this shows the longest running. */
const RUNNING_LIMIT = 200;

const RunningWorkerSchema = Type.Object(
  {
    worker: Type.String({ description: 'host:pid:slot of the process and worker slot running the jobs.' }),
    jobs: Type.Array(
      Type.Object({
        id: Type.String(),
        accountId: Type.String(),
        kind: Type.Optional(Type.String()),
        name: Type.Optional(Type.String()),
        startedAt: Type.Optional(Type.String({ format: 'date-time' })),
        progress: Type.Optional(Type.Integer()),
      }),
    ),
  },
  { title: 'RunningWorker' },
);

/** Running jobs grouped by the worker that claimed them, workers in name order, jobs longest running first. */
function byWorker(running: Job[]) {
  const groups = new Map<string, Job[]>();
  for (const job of running) {
    const worker = job.worker ?? 'unknown';
    groups.set(worker, [...(groups.get(worker) ?? []), job]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([worker, list]) => ({
      worker,
      jobs: list.map((job) => ({
        id: job.id,
        accountId: job.accountId,
        ...(job.kind ? { kind: job.kind } : {}),
        ...(job.input?.name ? { name: job.input.name } : {}),
        ...(job.startedAt === undefined ? {} : { startedAt: iso(job.startedAt) }),
        ...(job.progress === undefined ? {} : { progress: job.progress }),
      })),
    }));
}

/** What the process's metrics count since it started (runtime/metrics.ts). */
export interface MetricTotals {
  totals(): Promise<{
    jobs: { kind: string; status: string; count: number }[];
    webhooks: { outcome: string; count: number }[];
  }>;
}

export interface OperatorRouteOptions {
  accounts: AccountService;
  users: UserService;
  queue: JobQueue;
  jobs: Pick<JobStore, 'listRunning'>;
  diskSpace: Pick<DiskSpaceMonitor, 'check'>;
  metrics: MetricTotals | undefined;
  /** Workers of this process per lane (PRESSO_WORKERS, PRESSO_MEDIA_WORKERS). */
  workers: { standard: number; media: number };
}

export async function operatorRoute(app: FastifyInstance, options: OperatorRouteOptions) {
  const { accounts, users, queue, jobs, diskSpace, metrics, workers } = options;
  const describe = async (account: Account) => ({
    id: account.id,
    name: account.name,
    createdAt: iso(account.createdAt),
    rateLimit: account.rateLimit,
    disabled: account.disabledAt !== undefined,
    usage: await accounts.getUsage(account.id),
  });

  app.get(
    '/1.0/operator/accounts',
    {
      config: OPERATOR,
      schema: {
        operationId: 'operatorListAccounts',
        tags: TAGS,
        summary: 'Every account with its rate limit, usage and state',
        response: { 200: Type.Object({ accounts: Type.Array(OperatorAccountSchema) }), ...commonErrors },
      },
    },
    async () => ({ accounts: await Promise.all((await accounts.listAccounts()).map(describe)) }),
  );

  app.post(
    '/1.0/operator/accounts',
    {
      config: OPERATOR,
      schema: {
        operationId: 'operatorCreateAccount',
        tags: TAGS,
        summary:
          'Create an account (its first API key is shown once); with ownerEmail, an invite for its owner',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            rateLimit: Type.Optional(Type.Integer({ minimum: 1 })),
            ownerEmail: Type.Optional(Type.String({ minLength: 3, maxLength: 254 })),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            account: OperatorAccountSchema,
            key: Type.Object({ id: Type.String(), key: Type.String({ description: 'Shown this once.' }) }),
            invite: Type.Optional(
              Type.Object({ url: Type.String(), expiresAt: Type.String({ format: 'date-time' }) }),
            ),
          }),
          409: ErrorSchema,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const body = request.body as { name: string; rateLimit?: number; ownerEmail?: string };
      const { account, key } = await accounts.createAccount(body.name, body.rateLimit);
      const invite =
        body.ownerEmail === undefined ? undefined : await users.invite(account.id, body.ownerEmail, 'owner');
      return reply.code(201).send({
        account: await describe(account),
        key,
        ...(invite ? { invite: { url: invite.url, expiresAt: iso(invite.expiresAt) } } : {}),
      });
    },
  );

  app.patch(
    '/1.0/operator/accounts/:id',
    {
      config: OPERATOR,
      schema: {
        operationId: 'operatorUpdateAccount',
        tags: TAGS,
        summary:
          "Change an account's rate limit, or disable it (its keys and sessions are refused) or enable it",
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: Type.Object(
          { rateLimit: Type.Optional(Type.Integer({ minimum: 1 })), disabled: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 200: OperatorAccountSchema, 404: ErrorSchema, ...commonErrors },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      return describe(
        await accounts.updateAccount(id, request.body as { rateLimit?: number; disabled?: boolean }),
      );
    },
  );

  app.get(
    '/1.0/operator/overview',
    {
      config: OPERATOR,
      schema: {
        operationId: 'operatorOverview',
        tags: TAGS,
        summary: 'Queue depth per lane, workers, disk, and job and webhook totals',
        description:
          'The queue is the deployment’s (shared in scaled mode); workers, disk and totals are those of the ' +
          'process that answers (totals count since it started).',
        response: {
          200: Type.Object({
            queue: Type.Object({
              lanes: Type.Array(
                Type.Object({
                  lane: Type.String(),
                  waiting: Type.Integer(),
                  running: Type.Integer(),
                  oldestWaitingSeconds: Type.Number(),
                }),
              ),
            }),
            workers: Type.Array(Type.Object({ lane: Type.String(), workers: Type.Integer() })),
            running: Type.Array(RunningWorkerSchema, {
              description: `Every process's running jobs (at most ${RUNNING_LIMIT}), grouped by worker.`,
            }),
            disk: Type.Object({ free: Type.Integer(), total: Type.Integer(), low: Type.Boolean() }),
            jobs: Type.Array(
              Type.Object({ kind: Type.String(), status: Type.String(), count: Type.Integer() }),
            ),
            webhooks: Type.Array(Type.Object({ outcome: Type.String(), count: Type.Integer() })),
          }),
          ...commonErrors,
        },
      },
    },
    async () => {
      const [lanes, running, disk, totals] = await Promise.all([
        queue.stats(),
        jobs.listRunning(RUNNING_LIMIT),
        diskSpace.check(),
        metrics?.totals() ?? { jobs: [], webhooks: [] },
      ]);
      return {
        queue: { lanes },
        workers: [
          { lane: 'standard', workers: workers.standard },
          { lane: 'media', workers: workers.media },
        ],
        running: byWorker(running),
        disk: { free: disk.freeBytes, total: disk.totalBytes, low: disk.low },
        jobs: totals.jobs,
        webhooks: totals.webhooks,
      };
    },
  );
}
