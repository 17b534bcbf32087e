/**
 * The backends of the embedded default: SQLite for state and queue, local disk for files, in-process
 * rate limits and events. The scaled-out mode opens the same `Backends` from PostgreSQL, Redis and S3;
 * `services.ts` wires either set, so nothing above this file knows which one it got.
 */
import type { Logger } from 'pino';
import { LocalFileStore } from '../files/local-file-store.ts';
import { LocalJobEvents } from '../jobs/job-events.ts';
import { JobSecretBox } from '../jobs/job-secrets.ts';
import { openDatabase } from '../persistence/sqlite/database.ts';
import { SqliteAccountStore } from '../persistence/sqlite/sqlite-account-store.ts';
import { SqliteConnectorStore } from '../persistence/sqlite/sqlite-connector-store.ts';
import { SqliteJobQueue } from '../persistence/sqlite/sqlite-job-queue.ts';
import { SqliteJobStore } from '../persistence/sqlite/sqlite-job-store.ts';
import { SqliteSessionStore } from '../persistence/sqlite/sqlite-session-store.ts';
import { SqliteUserStore } from '../persistence/sqlite/sqlite-user-store.ts';
import { SqliteWebhookStore } from '../persistence/sqlite/sqlite-webhook-store.ts';
import { MemoryRateLimiter } from '../ratelimit/memory-rate-limiter.ts';
import { PollingDeliverySchedule } from '../webhooks/polling-delivery-schedule.ts';
import type { Backends } from './backends.ts';
import type { Config } from './config.ts';
import { dataPaths, ensureEncryptionKey } from './data-dir.ts';

/** `logger` receives what the backends cannot throw to anyone: failures of the queue's own bookkeeping. */
export async function openEmbeddedBackends(config: Config, logger: Logger): Promise<Backends> {
  const paths = dataPaths(config.dataDir);
  const connectorKey = config.connectors.key ?? (await ensureEncryptionKey(paths.encryptionKey)).key;
  const jobSecrets = new JobSecretBox(connectorKey);
  const db = openDatabase(paths.database);
  const limiter = new MemoryRateLimiter({ windowMs: config.rateLimit.windowMs });
  const events = new LocalJobEvents();
  const webhookStore = new SqliteWebhookStore(db);
  return {
    jobStore: new SqliteJobStore(db, jobSecrets),
    queue: new SqliteJobQueue(db, {
      retryDelayMs: config.storage.retryMs,
      logger: logger.child({ component: 'queue' }),
    }),
    events,
    files: new LocalFileStore(paths.files),
    limiter,
    webhookStore,
    webhookSchedule: new PollingDeliverySchedule(webhookStore, {
      logger: logger.child({ component: 'webhooks' }),
    }),
    accountStore: new SqliteAccountStore(db),
    connectorStore: new SqliteConnectorStore(db),
    userStore: new SqliteUserStore(db),
    sessionStore: new SqliteSessionStore(db),
    connectorKey,
    jobSecrets,
    localDataDir: config.dataDir,
    async close() {
      await limiter.close();
      await events.close();
      db.close();
    },
  };
}
