/**
 * Sends webhook deliveries: signed POSTs through the outbound client (so the address guard applies),
 * retried on transient failures along `retrySchedule`. The store is the source of truth: a delivery
 * is stored before its first attempt and rescheduled there between attempts, so a restart loses
 * nothing. Deliveries are picked up when enqueued, when a retry falls due and by a slow poll; the
 * claim-and-send machinery (concurrency, kick, poll, graceful stop) is `WorkPool`'s.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { PressoError } from '../errors/catalog.ts';
import { WorkPool } from '../jobs/work-pool.ts';
import type { OutboundClient } from '../outbound/outbound-client.ts';
import { signWebhook } from './signature.ts';
import type { WebhookDelivery, WebhookStore } from './webhook-store.ts';

export interface WebhookDispatcherOptions {
  store: WebhookStore;
  client: OutboundClient;
  /** The account's webhook secret; undefined when the account is gone (the delivery then fails). */
  secretFor: (accountId: string) => Promise<string | undefined>;
  userAgent: string;
  /** Per attempt. */
  timeoutMs: number;
  /** Milliseconds to wait before each retry; after the last one the delivery is given up. */
  retrySchedule: number[];
  /** Safety-net poll for due deliveries (default 5 s). */
  pollIntervalMs?: number;
  /** Attempts in flight at once (default 16). */
  concurrency?: number;
  /** How long `stop()` waits for attempts in flight before aborting them (default `timeoutMs`). */
  stopGraceMs?: number;
  now?: () => number;
  logger?: Logger;
  /**
   * A store shared with other processes' dispatchers (PostgreSQL): look for deliveries a dead process
   * left 'sending' this often, not only at start (the store decides what is old enough to take back).
   */
  reclaimIntervalMs?: number;
  /** Sees the outcome of every attempt (metrics): delivered, will retry, or given up. */
  onOutcome?: (outcome: 'succeeded' | 'retry' | 'failed') => void;
}

export interface EnqueueWebhook {
  jobId: string;
  accountId: string;
  url: string;
  payload: object;
  /**
   * Makes the enqueue idempotent: the delivery's id is derived from it, so a second enqueue with the same
   * key (a report repeated after a crash) stores and sends nothing new. Without it every enqueue is new.
   */
  key?: string | undefined;
}

type Outcome = 'succeeded' | 'retry' | 'failed';

const DEFAULT_POLL_MS = 5000;

export class WebhookDispatcher {
  readonly #options: WebhookDispatcherOptions;
  readonly #now: () => number;
  readonly #pollMs: number;
  readonly #pool: WorkPool<WebhookDelivery>;
  #wakeTimer: NodeJS.Timeout | undefined;
  #resetPending = false;
  #reclaimTimer: NodeJS.Timeout | undefined;

  constructor(options: WebhookDispatcherOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#pollMs = options.pollIntervalMs ?? DEFAULT_POLL_MS;
    const store = options.store;
    this.#pool = new WorkPool<WebhookDelivery>(
      {
        claim: (limit) => store.claimDue(this.#now(), limit),
        idOf: (delivery) => delivery.id,
        process: (delivery, signal) => this.#send(delivery, signal),
        release: async (deliveries) => {
          for (const d of deliveries) await store.reschedule(d.id, this.#now(), this.#now());
        },
        beforeClaims: () => this.#resetInterrupted(),
        afterClaims: () => this.#scheduleWake(),
        onPumpError: (error) =>
          options.logger?.error({ err: error }, 'webhook dispatcher failed to claim deliveries'),
        onWorkError: (error, deliveryId) =>
          options.logger?.error({ err: error, deliveryId }, 'webhook attempt failed unexpectedly'),
      },
      { concurrency: options.concurrency ?? 16, pollMs: this.#pollMs },
    );
  }

  /** Stores a delivery (sent as soon as the dispatcher runs) and returns its id. */
  async enqueue(input: EnqueueWebhook): Promise<string> {
    const id = input.key === undefined ? randomUUID() : uuidFromKey(input.key);
    // Serialised once: every attempt sends (and signs) exactly the same bytes.
    const payload = JSON.stringify(input.payload);
    await this.#options.store.create(
      { id, jobId: input.jobId, accountId: input.accountId, url: input.url, payload },
      this.#now(),
    );
    this.#pool.kick();
    return id;
  }

  /** Sends a finished delivery again. False when it is unknown (for that account) or not finished. */
  async replay(deliveryId: string, accountId?: string): Promise<boolean> {
    const delivery = await this.#options.store.replay(deliveryId, this.#now(), accountId);
    if (delivery) this.#pool.kick();
    return delivery !== undefined;
  }

  async start(): Promise<void> {
    if (this.#pool.running) return;
    // A full database must not stop the process from starting: the reset is then retried by the pump.
    this.#resetPending = true;
    await this.#resetInterrupted().catch((error: unknown) => {
      this.#options.logger?.error(
        { err: error },
        'could not resume interrupted webhook deliveries; retrying',
      );
    });
    this.#pool.start();
    if (this.#options.reclaimIntervalMs !== undefined) {
      this.#reclaimTimer = setInterval(() => {
        this.#resetPending = true;
        this.#pool.kick();
      }, this.#options.reclaimIntervalMs);
      this.#reclaimTimer.unref();
    }
  }

  /** Rows left 'sending' by a dead process go back to pending; before any claim of ours, which this would undo. */
  async #resetInterrupted(): Promise<void> {
    if (!this.#resetPending) return;
    const reset = await this.#options.store.resetSending(this.#now());
    this.#resetPending = false;
    if (reset > 0)
      this.#options.logger?.warn({ count: reset }, 'webhook deliveries interrupted by a restart resumed');
  }

  /** Stops taking work; attempts in flight get the grace period, then are aborted and rescheduled. */
  async stop(): Promise<void> {
    clearInterval(this.#reclaimTimer);
    clearTimeout(this.#wakeTimer);
    await this.#pool.stop(this.#options.stopGraceMs ?? this.#options.timeoutMs);
    // A pump that was claiming when stop() came may have armed the wake-up meanwhile.
    clearTimeout(this.#wakeTimer);
  }

  /** Wakes up when the next pending delivery falls due, so retries do not wait for the slow poll. */
  async #scheduleWake(): Promise<void> {
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = undefined;
    // At capacity, the next finished attempt kicks the pump anyway.
    if (!this.#pool.hasRoom) return;
    const due = await this.#options.store.nextDueAt();
    if (due === undefined || !this.#pool.running) return;
    // Far-off retries are left to the poll (setTimeout cannot wait more than ~24 days anyway).
    const delay = Math.min(Math.max(0, due - this.#now()), this.#pollMs);
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = setTimeout(() => this.#pool.kick(), delay);
    this.#wakeTimer.unref();
  }

  /** One attempt; when its own bookkeeping fails, the delivery is rescheduled rather than left 'sending'. */
  async #send(delivery: WebhookDelivery, stopSignal: AbortSignal): Promise<void> {
    try {
      await this.#attempt(delivery, stopSignal);
    } catch (error) {
      this.#options.logger?.error(
        { err: error, deliveryId: delivery.id },
        'webhook attempt bookkeeping failed',
      );
      // Best effort: do not leave the delivery 'sending' until the next restart.
      const retryAt = this.#now() + (this.#options.retrySchedule[0] ?? 0);
      await this.#options.store.reschedule(delivery.id, retryAt, this.#now()).catch(() => {});
    }
  }

  async #attempt(delivery: WebhookDelivery, stopSignal: AbortSignal): Promise<void> {
    const { store, client, logger } = this.#options;
    const at = this.#now();
    const started = performance.now();
    let statusCode: number | undefined;
    let error: string | undefined;
    let outcome: Outcome;

    try {
      const secret = await this.#options.secretFor(delivery.accountId);
      if (secret === undefined) {
        error = 'The account has no webhook secret (was it deleted?); nothing was sent.';
        outcome = 'failed';
      } else {
        const timestamp = Math.floor(at / 1000);
        const result = await client.post({
          url: delivery.url,
          body: delivery.payload,
          headers: {
            'content-type': 'application/json',
            'user-agent': this.#options.userAgent,
            'webhook-id': delivery.id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signWebhook(secret, delivery.id, timestamp, delivery.payload),
          },
          timeoutMs: this.#options.timeoutMs,
          // The client enforces the time-out; ours is a backstop in case it does not.
          signal: AbortSignal.any([stopSignal, AbortSignal.timeout(this.#options.timeoutMs + 1000)]),
        });
        statusCode = result.status;
        outcome = classifyStatus(result.status);
      }
    } catch (thrown) {
      if (stopSignal.aborted) {
        // Shutting down is not the receiver's fault: hand the delivery back without counting it.
        await store.reschedule(delivery.id, this.#now(), this.#now());
        return;
      }
      error = describe(thrown);
      outcome = isPermanent(thrown) ? 'failed' : 'retry';
    }

    const durationMs = performance.now() - started;
    const number = await store.recordAttempt(delivery.id, { at, statusCode, error, durationMs });
    const runAttempts = delivery.attempts + 1;
    const delay = this.#options.retrySchedule[runAttempts - 1];
    const log = { deliveryId: delivery.id, jobId: delivery.jobId, attempt: number, statusCode, error };

    this.#options.onOutcome?.(outcome === 'retry' && delay === undefined ? 'failed' : outcome);
    if (outcome === 'succeeded') {
      await store.markSucceeded(delivery.id, this.#now());
      logger?.info(log, 'webhook delivered');
    } else if (outcome === 'retry' && delay !== undefined) {
      await store.reschedule(delivery.id, this.#now() + delay, this.#now());
      logger?.warn({ ...log, retryInMs: delay }, 'webhook attempt failed; will retry');
    } else {
      await store.markFailed(delivery.id, this.#now());
      logger?.warn(log, 'webhook delivery failed; giving up');
    }
  }
}

/** Any 2xx acknowledges. 408, 429 and 5xx are transient; 410 and everything else are final. */
function classifyStatus(status: number): Outcome {
  if (status >= 200 && status < 300) return 'succeeded';
  if (status === 408 || status === 429 || status >= 500) return 'retry';
  // 410 Gone means "stop sending"; other 4xx (and 3xx: redirects are not followed) will not fix themselves.
  return 'failed';
}

/** The outbound guard refusing the address (a ValidationError) will refuse it again; anything else may pass. */
function isPermanent(error: unknown): boolean {
  return error instanceof PressoError && error.statusCode === 422;
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${message}${cause}`.slice(0, 1000);
}

/** A UUID (version 8, RFC 9562) named by `key`: the same key always gives the same id. */
function uuidFromKey(key: string): string {
  const bytes = createHash('sha256').update(`presso-webhook:${key}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
