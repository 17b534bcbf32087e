/** How upload and fetch answer once the job service returns: result, error, or acknowledgement. */
import type { FastifyReply } from 'fastify';
import { fromRecord, InternalError } from '../../errors/catalog.ts';
import type { Job } from '../../jobs/job.ts';
import { syncResult } from '../../jobs/job-record.ts';

export function replyWithJob(reply: FastifyReply, job: Job) {
  if (job.status === 'completed') return reply.code(200).send(syncResult(job));
  if (job.status === 'failed') {
    throw job.error
      ? fromRecord(job.error)
      : new InternalError(new Error(`job ${job.id} failed without an error`));
  }
  return reply.code(202).send({ id: job.id, status: job.status });
}

/** Aborts when the client goes away, so a synchronous wait stops holding resources for nobody. */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
