/**
 * Persistent webhook deliveries and their attempts. Deliveries are stored before the first attempt
 * and rescheduled in the store between attempts, so pending retries survive a restart.
 *
 * A delivery's life: pending → sending (claimed by a dispatcher) → succeeded | failed, or back to
 * pending with a later `nextAttemptAt` for a retry. A finished delivery can be replayed (pending again).
 */

export type WebhookDeliveryState = 'pending' | 'sending' | 'succeeded' | 'failed';

export interface NewWebhookDelivery {
  id: string;
  jobId: string;
  accountId: string;
  url: string;
  /** The exact JSON body sent (and signed) on every attempt. */
  payload: string;
}

export interface WebhookDelivery extends NewWebhookDelivery {
  state: WebhookDeliveryState;
  /** Attempts in the current run: since creation, or since the last replay. Drives the retry schedule. */
  attempts: number;
  /** When the next attempt is due; undefined once finished. */
  nextAttemptAt: number | undefined;
  createdAt: number;
  updatedAt: number;
}

export interface WebhookAttempt {
  /** 1-based, increasing over the delivery's whole life (replays continue the numbering). */
  attempt: number;
  /** Milliseconds since the epoch when the attempt started. */
  at: number;
  /** The response status; undefined when no response came (network error, time-out). */
  statusCode: number | undefined;
  error: string | undefined;
  durationMs: number;
}

export type NewWebhookAttempt = Omit<WebhookAttempt, 'attempt'>;

export interface WebhookDeliveryWithAttempts extends WebhookDelivery {
  attemptLog: WebhookAttempt[];
}

/** Where a page of deliveries ended: the last one's creation time and id (keyset pagination). */
export interface DeliveryListPosition {
  createdAt: number;
  id: string;
}

export interface WebhookStore {
  /**
   * Stores a new delivery, due at `now`. When a delivery of that id exists, stores nothing and returns it
   * as it is: creating is idempotent, so a report repeated after a crash is not sent twice.
   */
  create(delivery: NewWebhookDelivery, now: number): Promise<WebhookDelivery>;
  get(id: string): Promise<WebhookDelivery | undefined>;
  /**
   * Atomically takes up to `limit` pending deliveries due at `now` (oldest due first) and marks them
   * 'sending', so no two dispatchers send the same delivery at once.
   */
  claimDue(now: number, limit: number): Promise<WebhookDelivery[]>;
  /**
   * Takes one delivery for its attempt due at `dueAt`, for a schedule that hands each due attempt to one
   * worker at a time (BullMQ): a pending delivery with that due time, or one left 'sending' with it (the
   * queue gives an attempt to another worker only once the first one's process is gone), becomes 'sending'.
   * Undefined when it has been finished, rescheduled or replayed since: the schedule's entry is stale.
   */
  claim(id: string, dueAt: number, now: number): Promise<WebhookDelivery | undefined>;
  /** Up to `limit` pending deliveries due at or before `before`, oldest due first, left pending. */
  listDue(before: number, limit: number): Promise<WebhookDelivery[]>;
  /** When the earliest pending delivery is due; undefined when none is pending. */
  nextDueAt(): Promise<number | undefined>;
  /** Appends an attempt (numbered by the store) and counts it in `attempts`. Returns its number. */
  recordAttempt(id: string, attempt: NewWebhookAttempt): Promise<number>;
  markSucceeded(id: string, now: number): Promise<void>;
  /** Gave up: no more attempts. */
  markFailed(id: string, now: number): Promise<void>;
  /** Back to pending, due at `nextAttemptAt`. */
  reschedule(id: string, nextAttemptAt: number, now: number): Promise<void>;
  /** A job's deliveries with their attempts, oldest first; only the account's when `accountId` is given. */
  listForJob(jobId: string, accountId?: string): Promise<WebhookDeliveryWithAttempts[]>;
  /**
   * An account's deliveries across its jobs with their attempts, newest first (by creation, then id), `limit`
   * at most, after `after` when given; `next` is set when more follow.
   */
  listForAccount(
    accountId: string,
    page: { limit: number; after?: DeliveryListPosition | undefined },
  ): Promise<{ deliveries: WebhookDeliveryWithAttempts[]; next: DeliveryListPosition | undefined }>;
  /**
   * Crash recovery at start-up: deliveries left 'sending' by a process that died go back to pending,
   * due now. A store shared by several dispatchers (PostgreSQL) takes back only claims old enough that
   * their process must have died. Returns how many were reset.
   */
  resetSending(now: number): Promise<number>;
  /**
   * Puts a finished (succeeded or failed) delivery back to pending, due now, with a fresh run of
   * attempts. Returns it, or undefined when it does not exist (for that account) or is not finished.
   */
  replay(id: string, now: number, accountId?: string): Promise<WebhookDelivery | undefined>;
}
