/**
 * Accepts work from the API: records the job, queues it, counts it in the account's usage, and for
 * synchronous requests waits for the outcome up to the synchronous time-out. It knows nothing of
 * HTTP: routes translate its results.
 */
import type { Logger } from 'pino';
import { NotFoundError, toPressoError } from '../errors/catalog.ts';
import { storageErrorOr } from '../errors/storage-full.ts';
import type { FileStore } from '../files/file-store.ts';
import { detectFile } from '../media/detect.ts';
import type { OutboundClient } from '../outbound/outbound-client.ts';
import { isFinished, type Job, jobKeys, type ReceivedFile } from './job.ts';
import type { JobEvents } from './job-events.ts';
import type { EnqueueOptions, JobLane, JobQueue } from './job-queue.ts';
import type { UsageDelta, UsageRecorder } from './job-reporting.ts';
import type { JobListFilter, JobListPosition, JobPage, JobStore } from './job-store.ts';
import { type JobUpdate, type JobUpdateOptions, jobUpdates } from './job-updates.ts';
import type { OutputDestinations } from './output-destinations.ts';
import type { ParsedFetchRequest, ParsedRequest } from './request-params.ts';

export interface JobServiceOptions {
  asyncThresholdBytes: number;
  syncTimeoutMs: number;
  /**
   * The queue lane of an upload of this kind (the processor catalog's: video and audio take the media lane);
   * standard when absent. A fetched file's kind is known only once a worker downloaded it, so fetches take
   * the standard lane (the encode budget still bounds how many encode at once).
   */
  laneOf?: (kind: string | undefined) => JobLane;
}

export interface JobServiceDeps {
  store: JobStore;
  queue: JobQueue;
  events: JobEvents;
  files: FileStore;
  outbound: OutboundClient;
  usage: UsageRecorder;
  logger: Logger;
  /** Checks a request's `store` against the account's connectors before the job is recorded. */
  destinations: OutputDestinations;
}

export class JobService {
  readonly #deps: JobServiceDeps;
  readonly #options: JobServiceOptions;

  constructor(deps: JobServiceDeps, options: JobServiceOptions) {
    this.#deps = deps;
    this.#options = options;
  }

  /**
   * Records and queues an uploaded job. `path` is the uploaded file on local disk: it is moved into the
   * file store (the caller removes whatever is left of it if this fails). Returns the job as it stands
   * when the caller should answer: finished (synchronous result) or still running (acknowledge with 202).
   */
  async submitUpload(
    args: { jobId: string; accountId: string; received: ReceivedFile; path: string; request: ParsedRequest },
    signal?: AbortSignal,
  ): Promise<Job> {
    const { jobId, received, path, request } = args;
    if (request.webhookUrl) await this.#deps.outbound.checkUrl(request.webhookUrl, 'webhook.url');
    if (request.params.store) await this.#deps.destinations.check(args.accountId, request.params.store);
    // The kind and lane from the magic bytes, before the upload moves to the file store (a worker checks again).
    const kind = (await detectFile(path).catch(() => undefined))?.kind;
    const lane = this.#options.laneOf?.(kind) ?? 'standard';
    await this.#deps.files.putFile(jobKeys.input(jobId), path);
    const job = await this.#deps.store
      .create({
        id: jobId,
        accountId: args.accountId,
        source: { type: 'upload' },
        params: request.params,
        secrets: request.secrets,
        webhookUrl: request.webhookUrl,
        input: received,
        kind,
      })
      .catch(async (error: unknown) => {
        // Not recorded (e.g. the database is full): the stored input would belong to nothing.
        await this.#deps.files.deletePrefix(`jobs/${jobId}/`).catch(() => {});
        throw error;
      });
    const async = request.forceAsync || received.size > this.#options.asyncThresholdBytes;
    return this.#enqueue(job, { jobs: 1, bytesIn: received.size }, async, signal, lane);
  }

  async submitFetch(
    args: { jobId: string; accountId: string; request: ParsedFetchRequest },
    signal?: AbortSignal,
  ): Promise<Job> {
    const { request } = args;
    await this.#deps.outbound.checkUrl(request.url, 'url');
    if (request.webhookUrl) await this.#deps.outbound.checkUrl(request.webhookUrl, 'webhook.url');
    if (request.params.store) await this.#deps.destinations.check(args.accountId, request.params.store);
    const job = await this.#deps.store.create({
      id: args.jobId,
      accountId: args.accountId,
      source: { type: 'fetch', url: request.url },
      params: request.params,
      secrets: request.secrets,
      webhookUrl: request.webhookUrl,
      input: undefined,
    });
    // The input's size is not known until the download, so a fetch counts no bytesIn (as before).
    return this.#enqueue(job, { jobs: 1 }, request.forceAsync, signal);
  }

  /** A job of this account; another account's job is "not found" so ids do not leak. */
  async getForAccount(accountId: string, jobId: string): Promise<Job> {
    const job = await this.#deps.store.get(jobId);
    if (!job || job.accountId !== accountId) throw new NotFoundError('No job with this id.');
    return job;
  }

  /** The account's jobs, newest first, filtered and paged (JobStore.list). */
  list(
    accountId: string,
    filter: JobListFilter,
    page: { limit: number; after?: JobListPosition | undefined },
  ): Promise<JobPage> {
    return this.#deps.store.list(accountId, filter, page);
  }

  /** A job's state and then its changes until it ends (job-updates.ts); 404 for another account's job. */
  async updates(
    accountId: string,
    jobId: string,
    options: JobUpdateOptions,
  ): Promise<AsyncGenerator<JobUpdate, void, undefined>> {
    await this.getForAccount(accountId, jobId);
    return jobUpdates(this.#deps, jobId, options);
  }

  async #enqueue(
    job: Job,
    usage: UsageDelta,
    async: boolean,
    signal?: AbortSignal,
    lane: JobLane = 'standard',
  ): Promise<Job> {
    // Accounts take turns in the queue, so one account's flood cannot hold another's job behind it.
    const account = job.accountId;
    if (async) {
      await this.#queue(job, usage, { lane, account });
      return job;
    }
    // Watch before queueing, so a job that finishes at once is not missed.
    const watch = await this.#deps.events.watch(job.id);
    try {
      // A client waits for this one: it goes before the account's background work.
      await this.#queue(job, usage, { lane, account, urgent: true });
      const deadline = Date.now() + this.#options.syncTimeoutMs;
      for (;;) {
        const current = (await this.#deps.store.get(job.id)) ?? job;
        if (isFinished(current)) return current;
        // A fetched input turned out larger than the threshold: answer asynchronously.
        if (current.input && current.input.size > this.#options.asyncThresholdBytes) return current;
        const remaining = deadline - Date.now();
        if (remaining <= 0 || signal?.aborted) return current;
        await watch.next(remaining, signal);
      }
    } finally {
      watch.close();
    }
  }

  /** Queues a recorded job and counts it; a job that could not be queued is failed, not left waiting forever. */
  async #queue(job: Job, usage: UsageDelta, options: EnqueueOptions): Promise<void> {
    try {
      await this.#deps.queue.enqueue(job.id, options);
    } catch (error) {
      await this.#deps.store.fail(job.id, toPressoError(storageErrorOr(error)).toRecord()).catch(() => {});
      await this.#deps.files.deletePrefix(`jobs/${job.id}/`).catch(() => {});
      throw error;
    }
    // Counted once accepted. A counter that cannot be written (a full database) must not refuse
    // a job that is already queued: the miss is logged instead.
    await this.#deps.usage.addUsage(job.accountId, usage).catch((error: unknown) => {
      this.#deps.logger.error({ err: error, jobId: job.id, usage }, 'usage not counted');
    });
  }
}
