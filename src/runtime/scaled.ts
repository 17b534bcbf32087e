/**
 * The backends of the scaled-out mode: PostgreSQL for jobs, accounts, webhooks and connectors; Redis for
 * the BullMQ queue, the rate limits and the job events; an S3-compatible bucket for job files. Every API
 * and worker process opens the same set and shares it; `services.ts` wires it exactly as the embedded one.
 * Working files (uploads in flight, per-job folders) stay on each machine's local disk.
 */
import { mkdir } from 'node:fs/promises';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { ConfigError } from '../errors/catalog.ts';
import { S3FileStore } from '../files/s3-file-store.ts';
import { BullMqJobQueue } from '../jobs/bullmq-job-queue.ts';
import { JobSecretBox } from '../jobs/job-secrets.ts';
import { RedisJobEvents } from '../jobs/redis-job-events.ts';
import { openPostgres } from '../persistence/postgres/database.ts';
import { PgAccountStore } from '../persistence/postgres/pg-account-store.ts';
import { PgConnectorStore } from '../persistence/postgres/pg-connector-store.ts';
import { PgJobStore } from '../persistence/postgres/pg-job-store.ts';
import { PgSessionStore } from '../persistence/postgres/pg-session-store.ts';
import { PgUserStore } from '../persistence/postgres/pg-user-store.ts';
import { PgWebhookStore } from '../persistence/postgres/pg-webhook-store.ts';
import { RedisRateLimiter } from '../ratelimit/redis-rate-limiter.ts';
import { BullMqDeliverySchedule } from '../webhooks/bullmq-delivery-schedule.ts';
import type { Backends } from './backends.ts';
import type { Config } from './config.ts';

export async function openScaledBackends(config: Config, logger: Logger): Promise<Backends> {
  const { runtime } = config;
  const scaled = runtime.scaled;
  if (scaled === undefined) throw new Error('openScaledBackends needs PRESSO_MODE=scaled');
  // Each process would make its own key otherwise, and none could read another's connectors.
  const connectorKey = config.connectors.key;
  if (connectorKey === undefined) {
    throw new ConfigError('PRESSO_MODE=scaled needs PRESSO_CONNECTOR_KEY (the same on every process)');
  }
  const jobSecrets = new JobSecretBox(connectorKey);
  // Only working files live here in scaled mode, but readiness watches its free space from the start.
  await mkdir(config.dataDir, { recursive: true });
  const prefix = `${runtime.redisPrefix}:`;
  // PostgreSQL first: when it cannot be reached (or a migration fails) nothing else is open yet, so the
  // process can end instead of holding Redis connections that keep reconnecting.
  const pool = await openPostgres(scaled.databaseUrl, { max: runtime.databasePool });
  pool.on('error', (error) =>
    logger.warn({ err: error, component: 'postgres' }, 'PostgreSQL connection error'),
  );
  // Commands (rate limits, events) fail after a few reconnection attempts while Redis is away, so a request
  // is answered with an error instead of hanging; the subscriber waits for Redis and re-subscribes.
  const redis = new Redis(scaled.redisUrl, { maxRetriesPerRequest: 2 });
  const subscriber = new Redis(scaled.redisUrl, { maxRetriesPerRequest: null });
  for (const connection of [redis, subscriber]) {
    connection.on('error', (error) =>
      logger.warn({ err: error, component: 'redis' }, 'Redis connection error'),
    );
  }
  const url = new URL(scaled.redisUrl);
  const connection = {
    host: url.hostname,
    port: Number(url.port || 6379),
    db: Number(url.pathname.slice(1) || 0),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
  const queue = new BullMqJobQueue({
    connection,
    prefix: runtime.redisPrefix,
    name: 'jobs',
    retryDelayMs: config.storage.retryMs,
    lockMs: runtime.queueLockMs,
    onError: (error) => logger.warn({ err: error, component: 'queue' }, 'queue worker error'),
  });
  const files = new S3FileStore({
    bucket: scaled.bucket,
    prefix: runtime.s3Prefix,
    client: {
      region: runtime.s3Region,
      forcePathStyle: runtime.s3ForcePathStyle,
      ...(runtime.s3Endpoint === undefined ? {} : { endpoint: runtime.s3Endpoint }),
      ...(runtime.s3AccessKeyId === undefined || runtime.s3SecretAccessKey === undefined
        ? {}
        : {
            credentials: { accessKeyId: runtime.s3AccessKeyId, secretAccessKey: runtime.s3SecretAccessKey },
          }),
    },
  });
  const events = new RedisJobEvents(redis, subscriber, prefix);
  const limiter = new RedisRateLimiter(redis, { windowMs: config.rateLimit.windowMs, keyPrefix: prefix });
  const webhookStore = new PgWebhookStore(pool, { staleSendingMs: config.webhooks.claimTimeoutMs });
  // Every due attempt is a BullMQ job; the table stays the record the API lists and replays.
  const webhookSchedule = new BullMqDeliverySchedule(webhookStore, {
    connection,
    prefix: runtime.redisPrefix,
    lockMs: runtime.queueLockMs,
    retryDelayMs: config.storage.retryMs,
    // Queues again what a process dying between the table and the queue left without a job.
    reconcileMs: Math.max(1000, Math.min(60_000, config.webhooks.claimTimeoutMs / 2)),
    logger: logger.child({ component: 'webhooks' }),
  });
  return {
    jobStore: new PgJobStore(pool, jobSecrets),
    queue,
    events,
    files,
    limiter,
    webhookStore,
    webhookSchedule,
    accountStore: new PgAccountStore(pool),
    connectorStore: new PgConnectorStore(pool),
    userStore: new PgUserStore(pool),
    sessionStore: new PgSessionStore(pool),
    connectorKey,
    jobSecrets,
    localDataDir: config.dataDir,
    async close() {
      await limiter.close();
      await events.close();
      await queue.close();
      await webhookSchedule.close();
      files.close();
      redis.disconnect();
      await pool.end();
    },
  };
}
