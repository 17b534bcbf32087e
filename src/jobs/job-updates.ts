/**
 * A job's changes as a stream, for `GET /1.0/jobs/{id}/events`: its state now, then each change of status or
 * progress until it ends, with a quiet tick between (the route sends a heartbeat on it). It rests on the
 * same watches as a synchronous request's wait (job-events.ts): an in-process emitter embedded, Redis pub/sub
 * scaled out. The watch is taken before the first read, so no change between the two is missed, and it is
 * closed however the stream ends (the job ended, the client went away, the service stops).
 */
import { isFinished, type Job } from './job.ts';
import type { JobEvents } from './job-events.ts';
import type { JobStore } from './job-store.ts';

export type JobUpdate =
  | { type: 'status'; job: Job }
  | { type: 'progress'; job: Job; progress: number }
  /** Nothing changed for `quietMs`. */
  | { type: 'quiet' };

export interface JobUpdateOptions {
  /** Ends the stream (the client disconnected, the service stops). */
  signal: AbortSignal;
  /** How long without a change before a `quiet` update (and a fresh read of the job, in case a notice was lost). */
  quietMs: number;
}

export async function* jobUpdates(
  deps: { store: JobStore; events: JobEvents },
  jobId: string,
  options: JobUpdateOptions,
): AsyncGenerator<JobUpdate, void, undefined> {
  const { signal, quietMs } = options;
  const watch = await deps.events.watch(jobId);
  try {
    let job = await deps.store.get(jobId);
    if (job === undefined) return;
    yield { type: 'status', job };
    let { status, progress } = job;
    if (progress !== undefined && status === 'processing') yield { type: 'progress', job, progress };
    while (!isFinished(job) && !signal.aborted) {
      const changed = await watch.next(quietMs, signal);
      if (signal.aborted) return;
      if (!changed) yield { type: 'quiet' };
      job = await deps.store.get(jobId);
      if (job === undefined) return;
      if (job.status !== status) yield { type: 'status', job };
      if (job.status === 'processing' && job.progress !== undefined && job.progress !== progress)
        yield { type: 'progress', job, progress: job.progress };
      ({ status, progress } = job);
    }
  } finally {
    watch.close();
  }
}
