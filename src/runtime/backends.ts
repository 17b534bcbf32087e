/**
 * The backends of one way to run: every store, the queue, events, files and rate limits, each behind
 * its interface. A mode (embedded now, scaled later) only opens these; `services.ts` builds the same
 * service graph over whichever set it gets, so a new mode writes a factory and nothing else.
 */
import type { AccountStore } from '../accounts/account-store.ts';
import type { ConnectorStore } from '../connectors/connector-store.ts';
import type { FileStore } from '../files/file-store.ts';
import type { JobEvents } from '../jobs/job-events.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { JobSecretBox } from '../jobs/job-secrets.ts';
import type { JobStore } from '../jobs/job-store.ts';
import type { RateLimiter } from '../ratelimit/rate-limiter.ts';
import type { SessionStore, UserStore } from '../users/user-store.ts';
import type { DeliverySchedule } from '../webhooks/delivery-schedule.ts';
import type { WebhookStore } from '../webhooks/webhook-store.ts';

export interface Backends {
  jobStore: JobStore;
  queue: JobQueue;
  events: JobEvents;
  files: FileStore;
  limiter: RateLimiter;
  webhookStore: WebhookStore;
  /** Who attempts which webhook delivery when: the store polled (embedded) or BullMQ (scaled). */
  webhookSchedule: DeliverySchedule;
  accountStore: AccountStore;
  connectorStore: ConnectorStore;
  /** Dashboard users and invites, and their sessions. */
  userStore: UserStore;
  sessionStore: SessionStore;
  /** The AES-256 key of connector credentials (the operator's, or the one kept in the embedded data directory). */
  connectorKey: Buffer;
  /** Seals the secrets of jobs (a key derived from the connector key): the job store seals, the runner opens. */
  jobSecrets: JobSecretBox;
  /**
   * The local directory that holds working files (uploads in flight, per-job work directories) and,
   * in the embedded mode, everything else; readiness watches its free space.
   */
  localDataDir: string;
  /** Closes every backend; the services using them must be stopped first. */
  close(): Promise<void>;
}
