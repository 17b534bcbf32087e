/**
 * Sends webhook deliveries: signed POSTs through the outbound client (so the address guard applies),
 * retried on transient failures along `retrySchedule`. The store is the source of truth: a delivery
 * is stored before its first attempt and rescheduled there between attempts, so a restart loses
 * nothing. Deliveries are picked up when enqueued, when a retry falls due and by a slow poll.
 */
import { randomUUID } from 'node:crypto';
import { PressoError } from '../errors/catalog.ts';
import type { OutboundClient } from '../outbound/outbound-client.ts';
import { signWebhook } from './signature.ts';
import type { WebhookDelivery, WebhookStore } from './webhook-store.ts';

export interface WebhookLogger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

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
  logger?: WebhookLogger;
}

export interface EnqueueWebhook {
  jobId: string;
  accountId: string;
  url: string;
  payload: object;
}

type Outcome = 'succeeded' | 'retry' | 'failed';

const DEFAULT_POLL_MS = 5000;

export class WebhookDispatcher {
  readonly #options: WebhookDispatcherOptions;
  readonly #now: () => number;
  readonly #concurrency: number;
  readonly #inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  #wakeTimer: NodeJS.Timeout | undefined;
  #pollTimer: NodeJS.Timeout | undefined;
  #running = false;
  #pumping = false;
  #pumpAgain = false;
  #resetPending = false;

  constructor(options: WebhookDispatcherOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#concurrency = Math.max(1, options.concurrency ?? 16);
  }

  /** Stores a delivery (sent as soon as the dispatcher runs) and returns its id. */
  async enqueue(input: EnqueueWebhook): Promise<string> {
    const id = randomUUID();
    // Serialised once: every attempt sends (and signs) exactly the same bytes.
    const payload = JSON.stringify(input.payload);
    await this.#options.store.create(
      { id, jobId: input.jobId, accountId: input.accountId, url: input.url, payload },
      this.#now(),
    );
    this.#kick();
    return id;
  }

  /** Sends a finished delivery again. False when it is unknown (for that account) or not finished. */
  async replay(deliveryId: string, accountId?: string): Promise<boolean> {
    const delivery = await this.#options.store.replay(deliveryId, this.#now(), accountId);
    if (delivery) this.#kick();
    return delivery !== undefined;
  }

  async start(): Promise<void> {
    if (this.#running) return;
    // A full database must not stop the process from starting: the reset is then retried by the pump.
    this.#resetPending = true;
    await this.#resetInterrupted().catch((error: unknown) => {
      this.#options.logger?.error(
        { err: error },
        'could not resume interrupted webhook deliveries; retrying',
      );
    });
    this.#running = true;
    this.#pollTimer = setInterval(() => this.#kick(), this.#options.pollIntervalMs ?? DEFAULT_POLL_MS);
    this.#pollTimer.unref();
    this.#kick();
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
    this.#running = false;
    clearInterval(this.#pollTimer);
    clearTimeout(this.#wakeTimer);
    const finished = Promise.allSettled([...this.#inFlight.values()].map((a) => a.done));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      finished.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), this.#options.stopGraceMs ?? this.#options.timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      for (const active of this.#inFlight.values()) active.controller.abort(new Error('shutting down'));
      await finished;
    }
  }

  #kick(): void {
    if (this.#running) void this.#pump();
  }

  /** Claims due deliveries while there is capacity. One pump at a time; a kick meanwhile re-runs it. */
  async #pump(): Promise<void> {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    try {
      await this.#resetInterrupted();
      do {
        this.#pumpAgain = false;
        while (this.#running && this.#inFlight.size < this.#concurrency) {
          const batch = await this.#options.store.claimDue(
            this.#now(),
            this.#concurrency - this.#inFlight.size,
          );
          if (batch.length === 0) break;
          if (!this.#running) {
            // stop() came while claiming: hand these back rather than send untracked attempts.
            for (const d of batch) await this.#options.store.reschedule(d.id, this.#now(), this.#now());
            break;
          }
          for (const delivery of batch) this.#launch(delivery);
        }
        await this.#scheduleWake();
      } while (this.#pumpAgain && this.#running);
    } catch (error) {
      this.#options.logger?.error({ err: error }, 'webhook dispatcher failed to claim deliveries');
    } finally {
      this.#pumping = false;
    }
  }

  /** Wakes up when the next pending delivery falls due, so retries do not wait for the slow poll. */
  async #scheduleWake(): Promise<void> {
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = undefined;
    // At capacity, the next finished attempt kicks the pump anyway.
    if (!this.#running || this.#inFlight.size >= this.#concurrency) return;
    const due = await this.#options.store.nextDueAt();
    if (due === undefined || !this.#running) return;
    // Far-off retries are left to the poll (setTimeout cannot wait more than ~24 days anyway).
    const delay = Math.min(Math.max(0, due - this.#now()), this.#options.pollIntervalMs ?? DEFAULT_POLL_MS);
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = setTimeout(() => this.#kick(), delay);
    this.#wakeTimer.unref();
  }

  #launch(delivery: WebhookDelivery): void {
    const controller = new AbortController();
    const done = this.#attempt(delivery, controller.signal)
      .catch(async (error: unknown) => {
        this.#options.logger?.error(
          { err: error, deliveryId: delivery.id },
          'webhook attempt bookkeeping failed',
        );
        // Best effort: do not leave the delivery 'sending' until the next restart.
        const retryAt = this.#now() + (this.#options.retrySchedule[0] ?? 0);
        await this.#options.store.reschedule(delivery.id, retryAt, this.#now()).catch(() => {});
      })
      .finally(() => {
        this.#inFlight.delete(delivery.id);
        this.#kick();
      });
    this.#inFlight.set(delivery.id, { controller, done });
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
