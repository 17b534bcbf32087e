/**
 * GET /1.0/jobs/{id}: the job's record (exactly the decided shape, which clients of the reference API parse),
 * plus its timings and steps when asked with `detail=true` (the dashboard's job page); while it runs,
 * `Retry-After` grows with the job's age. GET /1.0/jobs: the account's jobs, newest first, filtered, in keyset
 * pages.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '#typebox';
import { NotFoundError } from '../../errors/catalog.ts';
import { isFinished, type JobStatus, JobStatusSchema } from '../../jobs/job.ts';
import { jobRecord } from '../../jobs/job-record.ts';
import type { JobService } from '../../jobs/job-service.ts';
import { JobSummarySchema, JobTimingsSchema, jobSummary, jobTimings } from '../../jobs/job-summary.ts';
import {
  byteCount,
  decodeCursor,
  encodeCursor,
  NextCursorSchema,
  PageQuerySchema,
  pageSize,
  time,
} from '../list-params.ts';
import { requireAccount } from '../request-context.ts';
import { commonErrors, ErrorSchema, JobRecordResponseSchema } from '../schemas.ts';

const timings = JobTimingsSchema.properties;
const JobDetailSchema = Type.Object(
  {
    ...JobRecordResponseSchema.properties,
    queuedAt: Type.Optional(timings.queuedAt),
    startedAt: timings.startedAt,
    finishedAt: timings.finishedAt,
    steps: timings.steps,
  },
  { title: 'JobDetail' },
);

const JobListQuerySchema = Type.Object({
  status: Type.Optional(JobStatusSchema),
  kind: Type.Optional(Type.String({ maxLength: 32, examples: ['image'] })),
  since: Type.Optional(
    Type.String({ maxLength: 40, description: 'Created at or after (ISO 8601 date or date-time).' }),
  ),
  until: Type.Optional(
    Type.String({ maxLength: 40, description: 'Created before (ISO 8601 date or date-time).' }),
  ),
  minSize: Type.Optional(Type.String({ maxLength: 15, description: 'Input size at least, in bytes.' })),
  maxSize: Type.Optional(Type.String({ maxLength: 15, description: 'Input size at most, in bytes.' })),
  q: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Part of the job id or of the input file name: a plain substring, case-insensitive for ASCII.',
    }),
  ),
  ...PageQuerySchema,
});

type JobListQuery = { [K in keyof typeof JobListQuerySchema.properties]?: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Poll gently: about 1 s for a young job, up to 10 s for one that has run for minutes; never later than
 * the time left estimated from the job's progress (extension), when it reports one.
 */
export function retryAfterSeconds(ageMs: number, progress?: number): number {
  const byAge = retryAfterByAge(ageMs);
  if (progress === undefined || progress <= 0) return byAge;
  const leftSeconds = ((ageMs / 1000) * (100 - progress)) / progress;
  return Math.max(1, Math.min(byAge, Math.ceil(leftSeconds)));
}

function retryAfterByAge(ageMs: number): number {
  if (ageMs < 10_000) return 1;
  if (ageMs < 60_000) return 2;
  if (ageMs < 300_000) return 5;
  return 10;
}

export async function jobsRoute(app: FastifyInstance, options: { jobs: JobService }) {
  app.get(
    '/1.0/jobs',
    {
      config: { auth: true },
      schema: {
        operationId: 'listJobs',
        tags: ['Jobs'],
        summary: "List the account's jobs, newest first, filtered and paged",
        querystring: JobListQuerySchema,
        response: {
          200: Type.Object({ jobs: Type.Array(JobSummarySchema), nextCursor: NextCursorSchema }),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const account = requireAccount(request.account);
      const query = request.query as JobListQuery;
      const filter = {
        status: query.status as JobStatus | undefined,
        kind: query.kind,
        since: time('since', query.since),
        until: time('until', query.until),
        minSize: byteCount('minSize', query.minSize),
        maxSize: byteCount('maxSize', query.maxSize),
        q: query.q,
      };
      const page = await options.jobs.list(account.id, filter, {
        limit: pageSize(query.limit),
        after: decodeCursor(query.cursor),
      });
      return { jobs: page.jobs.map(jobSummary), nextCursor: encodeCursor(page.next) };
    },
  );

  app.get(
    '/1.0/jobs/:id',
    {
      config: { auth: true },
      schema: {
        operationId: 'getJob',
        tags: ['Jobs'],
        summary: 'Status or result of a job; with `detail=true`, also its timings and steps',
        params: Type.Object({ id: Type.String() }),
        querystring: Type.Object({
          detail: Type.Optional(
            Type.Union([Type.Literal('true'), Type.Literal('false')], {
              description: 'Extension: add `queuedAt`, `startedAt`, `finishedAt` and the last run’s `steps`.',
            }),
          ),
        }),
        response: { 200: JobDetailSchema, 404: ErrorSchema, ...commonErrors },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request.account);
      const { id } = request.params as { id: string };
      if (!UUID.test(id)) throw new NotFoundError('No job with this id.');
      const job = await options.jobs.getForAccount(account.id, id.toLowerCase());
      if (!isFinished(job)) {
        reply.header('retry-after', retryAfterSeconds(Date.now() - job.createdAt, job.progress));
      }
      const record = jobRecord(job);
      return (request.query as { detail?: string }).detail === 'true'
        ? { ...record, ...jobTimings(job) }
        : record;
    },
  );
}
