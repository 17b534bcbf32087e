/**
 * The scaled-out delivery schedule: every due attempt is a BullMQ job on Redis, delayed until it is due,
 * taken by whichever worker process is free. The job id names the delivery and its due time, so adding the
 * same attempt twice queues it once, and the worker claims the delivery in the store for exactly that due
 * time: an entry the store has moved past (the delivery finished, was rescheduled or replayed) does
 * nothing. A worker that dies mid-attempt loses its lock and BullMQ's stalled-job check gives the job to
 * another worker, whose claim takes the row back (`BullMqWorkers`).
 *
 * The store is written before the queue, so a process that dies between the two leaves a pending delivery
 * with no job: every worker process reconciles now and then, adding a job for deliveries overdue by more
 * than `reconcileMs` (re-adding one that is queued already is harmless) and taking back rows left 'sending'
 * past the store's claim time-out.
 */
import { type ConnectionOptions, Queue } from 'bullmq';
import type { Logger } from 'pino';
import { BullMqWorkers } from '../jobs/bullmq-workers.ts';
import type { DeliveryAttempt, DeliverySchedule } from './delivery-schedule.ts';
import type { WebhookStore } from './webhook-store.ts';

export interface BullMqDeliveryScheduleOptions {
  /** Redis connection settings; BullMQ opens its own connections (a worker blocks one). */
  connection: ConnectionOptions;
  /** Redis key prefix of the deployment. */
  prefix: string;
  /** Queue name (default `webhooks`). */
  name?: string;
  /** Attempts in flight at once in this process (default 16). */
  concurrency?: number;
  /** How long a worker's claim lasts without renewal: a dead worker's attempt runs again after this. */
  lockMs?: number;
  /** How often, and after how long overdue, pending deliveries without a job are queued again (default 60 s). */
  reconcileMs?: number;
  /** Delay before an attempt whose claim failed (the database was away) runs again (default 5 s). */
  retryDelayMs?: number;
  now?: () => number;
  logger?: Logger | undefined;
}

interface AttemptData {
  id: string;
  dueAt: number;
}

const FOREVER = Number.MAX_SAFE_INTEGER;
/** Overdue deliveries queued again per reconciliation; the next one takes the rest. */
const RECONCILE_BATCH = 500;

export class BullMqDeliverySchedule implements DeliverySchedule {
  readonly #store: WebhookStore;
  readonly #options: BullMqDeliveryScheduleOptions;
  readonly #now: () => number;
  readonly #queue: Queue<AttemptData>;
  readonly #workers = new BullMqWorkers();
  #reconcileTimer: NodeJS.Timeout | undefined;
  #reconciling = false;

  constructor(store: WebhookStore, options: BullMqDeliveryScheduleOptions) {
    this.#store = store;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    // As the job queue's: commands fail at once while Redis is away instead of hanging the caller.
    const connection = { ...options.connection, enableOfflineQueue: false, maxRetriesPerRequest: 1 };
    this.#queue = new Queue<AttemptData>(this.#name, { connection, prefix: options.prefix });
  }

  get #name(): string {
    return this.#options.name ?? 'webhooks';
  }

  async add(id: string, dueAt: number): Promise<void> {
    await this.#queue.add(
      'attempt',
      { id, dueAt },
      {
        // BullMQ refuses ':' in custom ids.
        jobId: `${id}@${dueAt}`,
        delay: Math.max(0, dueAt - this.#now()),
        // A claim that failed (the database was away) is tried again; the attempt itself never rejects.
        attempts: FOREVER,
        backoff: { type: 'fixed', delay: this.#options.retryDelayMs ?? 5000 },
        // Outcomes and attempts live in the store; the queue keeps nothing once an attempt is done with.
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }

  async start(attempt: DeliveryAttempt): Promise<void> {
    if (this.#workers.started) return;
    this.#workers.run(
      this.#name,
      async (job, signal) => {
        const { id, dueAt } = job.data as AttemptData;
        const delivery = await this.#store.claim(id, dueAt, this.#now());
        // Finished, rescheduled or replayed since this entry was queued: its successor is queued already.
        if (delivery) await attempt(delivery, signal);
      },
      {
        connection: this.#options.connection,
        prefix: this.#options.prefix,
        concurrency: this.#options.concurrency ?? 16,
        lockMs: this.#options.lockMs ?? 30_000,
        onError: (error) =>
          this.#options.logger?.warn({ err: error, component: 'webhooks' }, 'webhook queue worker error'),
      },
    );
    const reconcileMs = this.#options.reconcileMs ?? 60_000;
    this.#reconcileTimer = setInterval(() => void this.#reconcile(reconcileMs), reconcileMs);
    this.#reconcileTimer.unref();
    await this.#reconcile(reconcileMs);
  }

  /** Queues overdue deliveries that have no job (a process died between the store and the queue). */
  async #reconcile(overdueMs: number): Promise<void> {
    // A slow round (a large backlog, a slow database) is not overlapped by the next tick.
    if (this.#reconciling) return;
    this.#reconciling = true;
    try {
      const now = this.#now();
      const reset = await this.#store.resetSending(now);
      if (reset > 0)
        this.#options.logger?.warn({ count: reset }, 'webhook deliveries of a dead process resumed');
      const overdue = await this.#store.listDue(reset > 0 ? now : now - overdueMs, RECONCILE_BATCH);
      for (const delivery of overdue) await this.add(delivery.id, delivery.nextAttemptAt ?? now);
    } catch (error) {
      // Redis or the database away: the next round tries again.
      this.#options.logger?.error({ err: error }, 'could not reconcile webhook deliveries with the queue');
    } finally {
      this.#reconciling = false;
    }
  }

  async stop(graceMs: number): Promise<void> {
    clearInterval(this.#reconcileTimer);
    await this.#workers.stop(graceMs);
  }

  /** Lets go of running attempts as a crashed process does (their locks expire, another worker resumes them). */
  async abandon(): Promise<void> {
    clearInterval(this.#reconcileTimer);
    await this.#workers.abandon();
    await this.close();
  }

  async close(): Promise<void> {
    await this.#queue.close();
  }
}
