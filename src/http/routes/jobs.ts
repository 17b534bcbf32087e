/** GET /1.0/jobs/{id}: the job's record; while it runs, `Retry-After` grows with the job's age. */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { NotFoundError } from '../../errors/catalog.ts';
import { isFinished } from '../../jobs/job.ts';
import { jobRecord } from '../../jobs/job-record.ts';
import type { JobService } from '../../jobs/job-service.ts';
import { requireAccount } from '../request-context.ts';
import { commonErrors, ErrorSchema, JobRecordResponseSchema } from '../schemas.ts';

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
    '/1.0/jobs/:id',
    {
      config: { auth: true },
      schema: {
        summary: 'Status or result of a job',
        params: Type.Object({ id: Type.String() }),
        response: { 200: JobRecordResponseSchema, 404: ErrorSchema, ...commonErrors },
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
      return jobRecord(job);
    },
  );
}
