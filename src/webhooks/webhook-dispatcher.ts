/**
 * Sends webhook deliveries: signed POSTs through the outbound client (so the address guard applies),
 * retried on transient failures along `retrySchedule`. The store is the source of truth: a delivery
 * is stored before its first attempt and rescheduled there between attempts, so a restart loses
 * nothing. Which worker attempts a delivery when is the `DeliverySchedule`'s: polling the store
 * (embedded) or one BullMQ job per due attempt (scaled).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { PressoError } from '../errors/catalog.ts';
import type { OutboundClient } from '../outbound/outbound-client.ts';
import type { DeliverySchedule } from './delivery-schedule.ts';
import { PollingDeliverySchedule } from './polling-delivery-schedule.ts';
import { signWebhook } from './signature.ts';
import type { WebhookDelivery, WebhookStore } from './webhook-store.ts';

export interface WebhookDispatcherOptions {
  store: WebhookStore;
  client: OutboundClient;
  /**
   * The account's webhook secret, or its secrets while a rotation's grace period lasts (each signs, the
   * signatures space-separated); undefined when the account is gone (the delivery then fails).
   */
  secretFor: (accountId: string) => Promise<string | readonly string[] | undefined>;
  userAgent: string;
  /** Per attempt. */
  timeoutMs: number;
  /** Milliseconds to wait before each retry; after the last one the delivery is given up. */
  retrySchedule: number[];
  /** Who attempts which delivery when; by default the store is polled (`pollIntervalMs`, `concurrency`). */
  schedule?: DeliverySchedule;
  /** The default schedule's safety-net poll for due deliveries (default 5 s). */
  pollIntervalMs?: number;
  /** The default schedule's attempts in flight at once (default 16). */
  concurrency?: number;
  /** How long `stop()` waits for attempts in flight before aborting them (default `timeoutMs`). */
  stopGraceMs?: number;
  now?: () => number;
  logger?: Logger;
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

export class WebhookDispatcher {
  readonly #options: WebhookDispatcherOptions;
  readonly #now: () => number;
  readonly #schedule: DeliverySchedule;

  constructor(options: WebhookDispatcherOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#schedule =
      options.schedule ??
      new PollingDeliverySchedule(options.store, {
        ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
        ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
        now: this.#now,
        logger: options.logger,
      });
  }

  /** Stores a delivery (sent as soon as the dispatcher runs) and returns its id. */
  async enqueue(input: EnqueueWebhook): Promise<string> {
    const id = input.key === undefined ? randomUUID() : uuidFromKey(input.key);
    // Serialised once: every attempt sends (and signs) exactly the same bytes.
    const payload = JSON.stringify(input.payload);
    const stored = await this.#options.store.create(
      { id, jobId: input.jobId, accountId: input.accountId, url: input.url, payload },
      this.#now(),
    );
    // A repeated enqueue schedules the stored delivery again: harmless, and it heals a crash in between.
    if (stored.state === 'pending' && stored.nextAttemptAt !== undefined)
      await this.#schedule.add(id, stored.nextAttemptAt);
    return id;
  }

  /** Sends a finished delivery again. False when it is unknown (for that account) or not finished. */
  async replay(deliveryId: string, accountId?: string): Promise<boolean> {
    const delivery = await this.#options.store.replay(deliveryId, this.#now(), accountId);
    if (delivery?.nextAttemptAt !== undefined) await this.#schedule.add(delivery.id, delivery.nextAttemptAt);
    return delivery !== undefined;
  }

  async start(): Promise<void> {
    await this.#schedule.start((delivery, signal) => this.#send(delivery, signal));
  }

  /** Stops taking work; attempts in flight get the grace period, then are aborted and rescheduled. */
  async stop(): Promise<void> {
    await this.#schedule.stop(this.#options.stopGraceMs ?? this.#options.timeoutMs);
  }

  /** Back to pending in the store, then on the schedule: a crash in between leaves it to reconciliation. */
  async #reschedule(id: string, dueAt: number): Promise<void> {
    await this.#options.store.reschedule(id, dueAt, this.#now());
    await this.#schedule.add(id, dueAt);
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
      await this.#reschedule(delivery.id, retryAt).catch(() => {});
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
      const found = await this.#options.secretFor(delivery.accountId);
      const secrets = typeof found === 'string' ? [found] : (found ?? []);
      if (secrets.length === 0) {
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
            'webhook-signature': secrets
              .map((secret) => signWebhook(secret, delivery.id, timestamp, delivery.payload))
              .join(' '),
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
        await this.#reschedule(delivery.id, this.#now());
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
      await this.#reschedule(delivery.id, this.#now() + delay);
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
