/**
 * The embedded delivery schedule: due deliveries are claimed straight from the store, when one is added,
 * when a retry falls due (a timer set to the next due time) and by a slow safety-net poll. One process owns
 * the store, so deliveries a crash left 'sending' are taken back when it starts. The claim-and-run
 * machinery (concurrency, kick, poll, graceful stop) is `WorkPool`'s.
 */
import type { Logger } from 'pino';
import { WorkPool } from '../jobs/work-pool.ts';
import type { DeliveryAttempt, DeliverySchedule } from './delivery-schedule.ts';
import type { WebhookDelivery, WebhookStore } from './webhook-store.ts';

export interface PollingDeliveryScheduleOptions {
  /** Safety-net poll for due deliveries (default 5 s). */
  pollIntervalMs?: number;
  /** Attempts in flight at once (default 16). */
  concurrency?: number;
  now?: () => number;
  logger?: Logger | undefined;
}

const DEFAULT_POLL_MS = 5000;

export class PollingDeliverySchedule implements DeliverySchedule {
  readonly #store: WebhookStore;
  readonly #options: PollingDeliveryScheduleOptions;
  readonly #now: () => number;
  readonly #pollMs: number;
  #pool: WorkPool<WebhookDelivery> | undefined;
  #wakeTimer: NodeJS.Timeout | undefined;
  #resetPending = false;

  constructor(store: WebhookStore, options: PollingDeliveryScheduleOptions = {}) {
    this.#store = store;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#pollMs = options.pollIntervalMs ?? DEFAULT_POLL_MS;
  }

  /** The delivery is in the store already: only wake the pump (a future due time is found by the wake timer). */
  async add(): Promise<void> {
    this.#pool?.kick();
  }

  async start(attempt: DeliveryAttempt): Promise<void> {
    if (this.#pool?.running) return;
    const store = this.#store;
    const logger = this.#options.logger;
    const pool = new WorkPool<WebhookDelivery>(
      {
        claim: (limit) => store.claimDue(this.#now(), limit),
        idOf: (delivery) => delivery.id,
        process: attempt,
        release: async (deliveries) => {
          for (const d of deliveries) await store.reschedule(d.id, this.#now(), this.#now());
        },
        beforeClaims: () => this.#resetInterrupted(),
        afterClaims: () => this.#scheduleWake(),
        onPumpError: (error) => logger?.error({ err: error }, 'webhook schedule failed to claim deliveries'),
        onWorkError: (error, deliveryId) =>
          logger?.error({ err: error, deliveryId }, 'webhook attempt failed unexpectedly'),
      },
      { concurrency: this.#options.concurrency ?? 16, pollMs: this.#pollMs },
    );
    this.#pool = pool;
    // A full database must not stop the process from starting: the reset is then retried by the pump.
    this.#resetPending = true;
    await this.#resetInterrupted().catch((error: unknown) => {
      logger?.error({ err: error }, 'could not resume interrupted webhook deliveries; retrying');
    });
    pool.start();
  }

  /** Rows left 'sending' by a dead process go back to pending; before any claim of ours, which this would undo. */
  async #resetInterrupted(): Promise<void> {
    if (!this.#resetPending) return;
    const reset = await this.#store.resetSending(this.#now());
    this.#resetPending = false;
    if (reset > 0)
      this.#options.logger?.warn({ count: reset }, 'webhook deliveries interrupted by a restart resumed');
  }

  async stop(graceMs: number): Promise<void> {
    clearTimeout(this.#wakeTimer);
    await this.#pool?.stop(graceMs);
    // A pump that was claiming when stop() came may have armed the wake-up meanwhile.
    clearTimeout(this.#wakeTimer);
  }

  async close(): Promise<void> {}

  /** Wakes up when the next pending delivery falls due, so retries do not wait for the slow poll. */
  async #scheduleWake(): Promise<void> {
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = undefined;
    const pool = this.#pool;
    // At capacity, the next finished attempt kicks the pump anyway.
    if (!pool?.hasRoom) return;
    const due = await this.#store.nextDueAt();
    if (due === undefined || !pool.running) return;
    // Far-off retries are left to the poll (setTimeout cannot wait more than ~24 days anyway).
    const delay = Math.min(Math.max(0, due - this.#now()), this.#pollMs);
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = setTimeout(() => pool.kick(), delay);
    this.#wakeTimer.unref();
  }
}
