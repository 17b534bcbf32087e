/**
 * When and where webhook attempts run: the seam between the dispatcher (what one attempt does) and the
 * machinery that hands due attempts to workers. The store stays the record of every delivery either way;
 * a schedule only decides who attempts which delivery when.
 * - Embedded: `PollingDeliverySchedule` claims due rows from the store (one process owns it).
 * - Scaled: `BullMqDeliverySchedule` holds one BullMQ job per due attempt, shared by every worker process.
 */
import type { WebhookDelivery } from './webhook-store.ts';

/**
 * One attempt at a delivery the schedule claimed in the store ('sending'). It must leave the delivery
 * finished, or rescheduled in the store and added to the schedule again, and never reject.
 * `signal` aborts when a stop's grace runs out.
 */
export type DeliveryAttempt = (delivery: WebhookDelivery, signal: AbortSignal) => Promise<void>;

export interface DeliverySchedule {
  /**
   * The delivery `id` is pending in the store, due at `dueAt`: attempt it then, on some worker. Adding the
   * same due attempt again attempts it once; an entry the store has moved past (finished, rescheduled,
   * replayed) attempts nothing.
   */
  add(id: string, dueAt: number): Promise<void>;
  /** Starts attempting due deliveries in this process (a process that never starts only adds). */
  start(attempt: DeliveryAttempt): Promise<void>;
  /**
   * Stops attempting: attempts in flight get `graceMs`, then their signal aborts (the attempt hands its
   * delivery back). Nothing more starts here afterwards.
   */
  stop(graceMs: number): Promise<void>;
  /** Releases connections (after `stop`). */
  close(): Promise<void>;
}
