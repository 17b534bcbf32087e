/**
 * Runs one job in three typed phases (acquire, produce, publish), each a list of small named steps,
 * checking for cancellation between steps. Every outcome ends in the job store: completed, failed with a
 * catalogued error, or handed back to the queue by rethrowing (interrupted by shutdown, or storage ran
 * out). A finished job is reported: `bytesOut` to the account's usage, and the job record to its webhook.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import {
  InsufficientStorageError,
  InternalError,
  type PressoError,
  toPressoError,
} from '../errors/catalog.ts';
import { isStorageFull } from '../errors/storage-full.ts';
import { isFinished, type Job, type JobStep } from './job.ts';
import type { JobRunnerDeps, JobRunnerOptions, JobScope } from './job-context.ts';
import { jobRecord } from './job-record.ts';
import { type RequestSecrets, revealSecrets } from './job-secrets.ts';
import { acquire, produce, publish } from './job-steps.ts';
import { WorkerSlots } from './worker-slots.ts';

export class JobRunner {
  readonly #deps: JobRunnerDeps;
  readonly #options: JobRunnerOptions;
  readonly #slots = new WorkerSlots();

  constructor(deps: JobRunnerDeps, options: JobRunnerOptions) {
    this.#deps = deps;
    this.#options = options;
  }

  /**
   * The queue's handler. It rejects only to hand the job back: on shutdown, or when the disk or the
   * database is full (the queue runs it again later; the job is kept, not failed).
   */
  readonly run = async (jobId: string, signal: AbortSignal): Promise<void> => {
    const worker = this.#slots.take();
    try {
      await this.#run(jobId, signal, worker);
    } finally {
      this.#slots.release(worker);
    }
  };

  async #run(jobId: string, signal: AbortSignal, worker: string): Promise<void> {
    const { store, logger } = this.#deps;
    const job = await store.markProcessing(jobId, worker);
    if (!job) return; // deleted
    if (job.status !== 'processing') {
      // Finished by an earlier run. If that run died before reporting it, this run reports it.
      if (isFinished(job) && job.reportedAt === undefined) await this.#finish(job, logger.child({ jobId }));
      return;
    }
    const log = logger.child({ jobId, attempt: job.attempts, worker });
    await this.#deps.events.publishChanged(jobId);
    if (job.attempts > this.#options.maxAttempts) {
      const error = new InternalError(new Error(`interrupted ${job.attempts - 1} times`));
      await this.#finish(await store.fail(jobId, error.toRecord()), log);
      return;
    }
    const workDir = join(this.#options.workRoot, jobId);
    const started = performance.now();
    const steps: JobStep[] = [];
    try {
      // The run alone sees the request's secrets: the stored job keeps them sealed until it ends.
      const scope: JobScope = {
        job: this.#reveal(job),
        workDir,
        signal,
        deps: this.#deps,
        options: this.#options,
        log,
        steps,
      };
      await mkdir(workDir, { recursive: true });
      const acquired = await acquire(scope);
      const produced = await produce(scope, acquired);
      const output = await publish(scope, acquired, produced);
      const { input } = acquired;
      const completed = await store.complete(jobId, input, output, steps);
      this.#deps.observer?.jobFinished({
        kind: input.type,
        format: input.format,
        status: 'completed',
        seconds: (performance.now() - started) / 1000,
        bytesIn: input.size,
        bytesOut: output.descriptor.size,
      });
      log.info(
        {
          ms: Math.round(performance.now() - started),
          in: input.size,
          out: output.descriptor.size,
          format: input.format,
        },
        'job completed',
      );
      await this.#finish(completed, log);
    } catch (error) {
      if (signal.aborted) {
        log.warn({ reason: String(signal.reason) }, 'job interrupted; handed back to the queue');
        throw error;
      }
      if (isStorageFull(error)) await this.#handBack(jobId, error, log);
      const failure = toPressoError(error);
      if (failure instanceof InternalError)
        log.error({ err: failure.cause ?? error }, 'job failed unexpectedly');
      else log.info({ code: failure.code, message: failure.message, cause: causeOf(failure) }, 'job failed');
      const failed = await store.fail(jobId, failure.toRecord(), steps);
      this.#deps.observer?.jobFinished({
        kind: failed.input?.type ?? 'unknown',
        format: failed.input?.format ?? 'unknown',
        status: 'failed',
        seconds: (performance.now() - started) / 1000,
        bytesIn: failed.input?.size ?? 0,
        bytesOut: 0,
      });
      await this.#finish(failed, log);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  /** The job with its secrets opened and put back in place, for its run. */
  #reveal(job: Job): Job {
    if (job.sealedSecrets === undefined) return job;
    let secrets: RequestSecrets;
    try {
      secrets = this.#deps.secrets.open(job.id, job.sealedSecrets);
    } catch (error) {
      // Sealed with another key (PRESSO_CONNECTOR_KEY changed while the job waited), or altered.
      throw new InternalError(new Error("the job's secrets could not be opened", { cause: error }));
    }
    return revealSecrets(job, secrets);
  }

  /** Out of space is not the job's fault: it waits in the queue, its attempt uncounted, and runs again. */
  async #handBack(jobId: string, error: unknown, log: Logger): Promise<never> {
    log.warn({ err: error }, 'storage is full; job handed back to the queue to run again later');
    await this.#deps.store.releaseAttempt(jobId).catch((release: unknown) => {
      log.error({ err: release }, 'could not release the attempt; it counts');
    });
    throw new InsufficientStorageError(error);
  }

  async #finish(job: Job, log: Logger): Promise<void> {
    // The input is not needed once the job has ended; outputs stay until they expire.
    await this.#deps.files.deletePrefix(`jobs/${job.id}/input`).catch(() => {});
    await this.#deps.events.publishChanged(job.id);
    // The job has ended either way: a report that cannot be written is logged, never fatal. The job is
    // marked reported last, so a process dying before that leaves it to the next run (the queue's), which
    // reports again: the webhook's enqueue is keyed by the job, so it is not sent twice; usage counted in
    // the last instant before the death would count twice.
    const { output, webhookUrl } = job;
    if (webhookUrl) {
      await this.#deps.webhooks
        .enqueue({
          jobId: job.id,
          accountId: job.accountId,
          url: webhookUrl,
          payload: jobRecord(job),
          key: job.id,
        })
        .catch((error: unknown) => log.error({ err: error }, 'webhook not queued'));
    }
    if (output) {
      await this.#deps.usage
        .addUsage(job.accountId, { bytesOut: output.descriptor.size })
        .catch((error: unknown) => log.error({ err: error }, 'usage not counted'));
    }
    const kind = job.kind ?? job.input?.type ?? 'unknown';
    const daily = {
      jobs: 1,
      failures: job.status === 'failed' ? 1 : 0,
      bytesIn: job.input?.size ?? 0,
      bytesOut: output?.descriptor.size ?? 0,
    };
    await this.#deps.usage
      .addDailyUsage(job.accountId, job.finishedAt ?? Date.now(), kind, daily)
      .catch((error: unknown) => log.error({ err: error }, 'daily usage not counted'));
    await this.#deps.store
      .markReported(job.id)
      .catch((error: unknown) => log.error({ err: error }, 'job not marked reported'));
  }
}

function causeOf(error: PressoError): string | undefined {
  return error.cause instanceof Error ? error.cause.message : undefined;
}
