/**
 * Runs one job as a list of small named steps over a shared context, checking for cancellation
 * between steps. Every outcome ends in the job store: completed, failed with a catalogued error, or
 * (when interrupted by shutdown) handed back to the queue by rethrowing.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { InternalError, type PressoError, toPressoError } from '../errors/catalog.ts';
import type { Job } from './job.ts';
import type { JobContext, JobRunnerDeps, JobRunnerOptions } from './job-context.ts';
import { JOB_STEPS } from './job-steps.ts';

export class JobRunner {
  readonly #deps: JobRunnerDeps;
  readonly #options: JobRunnerOptions;

  constructor(deps: JobRunnerDeps, options: JobRunnerOptions) {
    this.#deps = deps;
    this.#options = options;
  }

  /** The queue's handler. */
  readonly run = async (jobId: string, signal: AbortSignal): Promise<void> => {
    const { store, logger } = this.#deps;
    const job = await store.markProcessing(jobId);
    if (job?.status !== 'processing') return; // deleted, or finished by an earlier run
    const log = logger.child({ jobId, attempt: job.attempts });
    await this.#deps.events.publishChanged(jobId);
    if (job.attempts > this.#options.maxAttempts) {
      const error = new InternalError(new Error(`interrupted ${job.attempts - 1} times`));
      await this.#finish(await store.fail(jobId, error.toRecord()));
      return;
    }
    const workDir = join(this.#options.workRoot, jobId);
    await mkdir(workDir, { recursive: true });
    const context: JobContext = { job, workDir, signal, deps: this.#deps, options: this.#options, log };
    const started = performance.now();
    try {
      for (const step of JOB_STEPS) {
        signal.throwIfAborted();
        await step.run(context);
      }
      const { input, output } = context;
      if (!input || !output) throw new Error('job steps ended without an input or output descriptor');
      const completed = await store.complete(jobId, input, output);
      log.info(
        {
          ms: Math.round(performance.now() - started),
          in: input.size,
          out: output.descriptor.size,
          format: input.format,
        },
        'job completed',
      );
      await this.#finish(completed);
    } catch (error) {
      if (signal.aborted) {
        log.warn({ reason: String(signal.reason) }, 'job interrupted; handed back to the queue');
        throw error;
      }
      const failure = toPressoError(error);
      if (failure instanceof InternalError)
        log.error({ err: failure.cause ?? error }, 'job failed unexpectedly');
      else log.info({ code: failure.code, message: failure.message, cause: causeOf(failure) }, 'job failed');
      await this.#finish(await store.fail(jobId, failure.toRecord()));
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  };

  async #finish(job: Job): Promise<void> {
    // The input is not needed once the job has ended; outputs stay until they expire.
    await this.#deps.files.deletePrefix(`jobs/${job.id}/input`).catch(() => {});
    await this.#deps.events.publishChanged(job.id);
    for (const listener of this.#deps.onFinished) {
      try {
        await listener(job);
      } catch (error) {
        this.#deps.logger.error({ err: error, jobId: job.id }, 'job-finished listener failed');
      }
    }
  }
}

function causeOf(error: PressoError): string | undefined {
  return error.cause instanceof Error ? error.cause.message : undefined;
}
