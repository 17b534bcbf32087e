/**
 * The composition root of the embedded default: SQLite for state and queue, local disk for files,
 * in-process rate limits and events. The scaled-out mode builds the same `Services` from PostgreSQL,
 * Redis and S3; nothing above this file knows which one it got.
 */
import { rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import { AccountService } from '../accounts/account-service.ts';
import type { Config } from '../config/index.ts';
import type { FileStore } from '../files/file-store.ts';
import { LocalFileStore } from '../files/local-file-store.ts';
import type { JobEvents } from '../jobs/job-events.ts';
import { LocalJobEvents } from '../jobs/job-events.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import { jobRecord } from '../jobs/job-record.ts';
import { JobRunner } from '../jobs/job-runner.ts';
import { JobService } from '../jobs/job-service.ts';
import type { JobStore } from '../jobs/job-store.ts';
import { JobSweeper } from '../jobs/job-sweeper.ts';
import { RequestParser } from '../jobs/request-params.ts';
import { GuardedOutboundClient } from '../outbound/guarded-client.ts';
import type { OutboundClient } from '../outbound/outbound-client.ts';
import { openDatabase } from '../persistence/sqlite/database.ts';
import { SqliteAccountStore } from '../persistence/sqlite/sqlite-account-store.ts';
import { SqliteJobQueue } from '../persistence/sqlite/sqlite-job-queue.ts';
import { SqliteJobStore } from '../persistence/sqlite/sqlite-job-store.ts';
import { SqliteWebhookStore } from '../persistence/sqlite/sqlite-webhook-store.ts';
import { createImageProcessor } from '../processors/image/image-processor.ts';
import { ProcessorRegistry } from '../processors/registry.ts';
import { MemoryRateLimiter } from '../ratelimit/memory-rate-limiter.ts';
import type { RateLimiter } from '../ratelimit/rate-limiter.ts';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.ts';
import type { WebhookStore } from '../webhooks/webhook-store.ts';
import { dataPaths, ensureEncryptionKey } from './data-dir.ts';

export interface Services {
  config: Config;
  logger: Logger;
  accounts: AccountService;
  jobStore: JobStore;
  queue: JobQueue;
  events: JobEvents;
  files: FileStore;
  limiter: RateLimiter;
  webhookStore: WebhookStore;
  outbound: OutboundClient;
  processors: ProcessorRegistry;
  parser: RequestParser;
  jobs: JobService;
  replayWebhook(deliveryId: string, accountId: string): Promise<boolean>;
  /** Starts workers, webhook deliveries and the sweeper (the API alone needs none of them). */
  startBackground(): Promise<void>;
  /** Stops background work (running jobs get the shutdown grace) and closes every resource. */
  close(): Promise<void>;
}

export async function openEmbeddedServices(config: Config, logger: Logger): Promise<Services> {
  const paths = dataPaths(config.dataDir);
  await ensureEncryptionKey(paths.encryptionKey);
  const db = openDatabase(paths.database);
  const accountStore = new SqliteAccountStore(db);
  const accounts = new AccountService(accountStore, { defaultRateLimit: config.rateLimit.defaultLimit });
  const jobStore = new SqliteJobStore(db);
  const queue = new SqliteJobQueue(db);
  const events = new LocalJobEvents();
  const files = new LocalFileStore(paths.files);
  const limiter = new MemoryRateLimiter({ windowMs: config.rateLimit.windowMs });
  const webhookStore = new SqliteWebhookStore(db);
  const outbound = new GuardedOutboundClient({
    ...config.outbound,
    serviceName: config.service.name,
    siteUrl: config.service.siteUrl,
  });
  const processors = new ProcessorRegistry([createImageProcessor(config.images)]);
  const parser = new RequestParser(processors);
  const jobs = new JobService(
    { store: jobStore, queue, events, files, outbound },
    {
      workRoot: paths.work,
      asyncThresholdBytes: config.jobs.asyncThresholdBytes,
      syncTimeoutMs: config.jobs.syncTimeoutMs,
    },
  );
  const dispatcher = new WebhookDispatcher({
    store: webhookStore,
    client: outbound,
    secretFor: async (accountId) => (await accounts.getAccount(accountId))?.webhookSecret,
    userAgent: `${config.service.name}/1.0 (+${config.service.siteUrl})`,
    timeoutMs: config.webhooks.timeoutMs,
    retrySchedule: config.webhooks.retrySchedule,
    logger: logger.child({ component: 'webhooks' }),
  });
  const runner = new JobRunner(
    {
      store: jobStore,
      files,
      events,
      processors,
      outbound,
      logger: logger.child({ component: 'worker' }),
      onFinished: [
        async (job) => {
          if (job.output) await accounts.addUsage(job.accountId, { bytesOut: job.output.descriptor.size });
        },
        async (job) => {
          if (job.webhookUrl) {
            await dispatcher.enqueue({
              jobId: job.id,
              accountId: job.accountId,
              url: job.webhookUrl,
              payload: jobRecord(job),
            });
          }
        },
      ],
    },
    {
      workRoot: paths.work,
      publicUrl: config.server.publicUrl,
      outputTtlMs: config.jobs.outputTtlMs,
      maxInputBytes: config.jobs.maxInputBytes,
      maxAttempts: config.jobs.maxAttempts,
    },
  );
  const sweeper = new JobSweeper(
    { store: jobStore, files, logger },
    { retentionMs: config.jobs.retentionMs },
  );

  return {
    config,
    logger,
    accounts,
    jobStore,
    queue,
    events,
    files,
    limiter,
    webhookStore,
    outbound,
    processors,
    parser,
    jobs,
    replayWebhook: (id, accountId) => dispatcher.replay(id, accountId),
    async startBackground() {
      // Working directories of a previous process are stale: its jobs re-run from their stored input.
      await rm(paths.work, { recursive: true, force: true });
      if (config.jobs.workers > 0) queue.start(runner.run, config.jobs.workers);
      await dispatcher.start();
      sweeper.start();
      await sweeper.sweep();
    },
    async close() {
      sweeper.stop();
      await queue.stop(config.server.shutdownGraceMs);
      await dispatcher.stop();
      await limiter.close();
      await events.close();
      await outbound.close();
      db.close();
    },
  };
}
