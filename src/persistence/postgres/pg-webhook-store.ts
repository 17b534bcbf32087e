/**
 * Webhook deliveries in PostgreSQL: the twin of sqlite-webhook-store.ts. Several worker processes deliver
 * at once here. In service the BullMQ schedule hands each due attempt to one worker, which takes its row
 * with `claim`; `claimDue` (a table-polling schedule) takes due rows with `FOR UPDATE SKIP LOCKED`, so each
 * row goes to exactly one process and none waits for another's claim.
 */
import type pg from 'pg';
import type {
  DeliveryListPosition,
  NewWebhookAttempt,
  NewWebhookDelivery,
  WebhookDelivery,
  WebhookDeliveryState,
  WebhookDeliveryWithAttempts,
  WebhookStore,
} from '../../webhooks/webhook-store.ts';
import { type AttemptRow, type DeliveryRow, toAttempt, toDelivery } from '../rows.ts';
import { execute, query, transaction } from './database.ts';

/**
 * A delivery 'sending' for this long lost its process (one attempt is one HTTP request, seconds long):
 * another process's start-up may take it back. Younger claims belong to a live process.
 */
const STALE_SENDING_MS = 10 * 60_000;

export class PgWebhookStore implements WebhookStore {
  readonly #db: pg.Pool;
  readonly #staleSendingMs: number;

  constructor(db: pg.Pool, options: { staleSendingMs?: number } = {}) {
    this.#db = db;
    this.#staleSendingMs = options.staleSendingMs ?? STALE_SENDING_MS;
  }

  async create(delivery: NewWebhookDelivery, now: number): Promise<WebhookDelivery> {
    const [row] = await query<DeliveryRow>(
      this.#db,
      `INSERT INTO webhook_deliveries
         (id, job_id, account_id, url, payload, state, attempts, next_attempt_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $6, $6) ON CONFLICT (id) DO NOTHING RETURNING *`,
      [delivery.id, delivery.jobId, delivery.accountId, delivery.url, delivery.payload, now],
    );
    // Nothing returned: a delivery of that id exists already (a report repeated after a crash).
    const stored = row ? toDelivery(row) : await this.get(delivery.id);
    if (!stored) throw new Error(`webhook delivery ${delivery.id} was not stored`);
    return stored;
  }

  async get(id: string): Promise<WebhookDelivery | undefined> {
    const [row] = await query<DeliveryRow>(this.#db, 'SELECT * FROM webhook_deliveries WHERE id = $1', [id]);
    return row ? toDelivery(row) : undefined;
  }

  async claimDue(now: number, limit: number): Promise<WebhookDelivery[]> {
    if (limit <= 0) return [];
    const rows = await query<DeliveryRow>(
      this.#db,
      `UPDATE webhook_deliveries SET state = 'sending', updated_at = $1
       WHERE id IN (
         SELECT id FROM webhook_deliveries
         WHERE state = 'pending' AND next_attempt_at <= $1
         ORDER BY next_attempt_at, created_at LIMIT $2
         FOR UPDATE SKIP LOCKED
       )
       RETURNING *`,
      [now, limit],
    );
    // RETURNING does not promise an order.
    return rows.map(toDelivery).sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0));
  }

  async claim(id: string, dueAt: number, now: number): Promise<WebhookDelivery | undefined> {
    const [row] = await query<DeliveryRow>(
      this.#db,
      `UPDATE webhook_deliveries SET state = 'sending', updated_at = $1
       WHERE id = $2 AND next_attempt_at = $3 AND state IN ('pending', 'sending') RETURNING *`,
      [now, id, dueAt],
    );
    return row ? toDelivery(row) : undefined;
  }

  async listDue(before: number, limit: number): Promise<WebhookDelivery[]> {
    const rows = await query<DeliveryRow>(
      this.#db,
      `SELECT * FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= $1
       ORDER BY next_attempt_at, created_at LIMIT $2`,
      [before, Math.max(0, limit)],
    );
    return rows.map(toDelivery);
  }

  async nextDueAt(): Promise<number | undefined> {
    const [row] = await query<{ due: number | null }>(
      this.#db,
      `SELECT MIN(next_attempt_at) AS due FROM webhook_deliveries WHERE state = 'pending'`,
    );
    return row?.due ?? undefined;
  }

  async recordAttempt(id: string, attempt: NewWebhookAttempt): Promise<number> {
    return transaction(this.#db, async (client) => {
      // The delivery's row lock orders two attempts recorded at once: each gets its own number.
      await query(client, 'SELECT id FROM webhook_deliveries WHERE id = $1 FOR UPDATE', [id]);
      const [row] = await query<{ attempt: number }>(
        client,
        `INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, error, duration_ms)
         VALUES ($1, (SELECT COALESCE(MAX(attempt), 0) + 1 FROM webhook_attempts WHERE delivery_id = $1), $2, $3, $4, $5)
         RETURNING attempt`,
        [
          id,
          attempt.at,
          attempt.statusCode ?? null,
          attempt.error ?? null,
          Math.max(0, Math.round(attempt.durationMs)),
        ],
      );
      if (!row) throw new Error(`webhook attempt for ${id} was not stored`);
      await execute(
        client,
        'UPDATE webhook_deliveries SET attempts = attempts + 1, updated_at = $1 WHERE id = $2',
        [attempt.at, id],
      );
      return row.attempt;
    });
  }

  async markSucceeded(id: string, now: number): Promise<void> {
    await this.#finish(id, 'succeeded', now);
  }

  async markFailed(id: string, now: number): Promise<void> {
    await this.#finish(id, 'failed', now);
  }

  async reschedule(id: string, nextAttemptAt: number, now: number): Promise<void> {
    await execute(
      this.#db,
      `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = $1, updated_at = $2 WHERE id = $3`,
      [nextAttemptAt, now, id],
    );
  }

  async listForJob(jobId: string, accountId?: string): Promise<WebhookDeliveryWithAttempts[]> {
    const deliveries = await query<DeliveryRow>(
      this.#db,
      `SELECT * FROM webhook_deliveries WHERE job_id = $1 AND ($2::text IS NULL OR account_id = $2)
       ORDER BY created_at, id`,
      [jobId, accountId ?? null],
    );
    return this.#withAttempts(deliveries);
  }

  async listForAccount(
    accountId: string,
    page: { limit: number; after?: DeliveryListPosition | undefined },
  ): Promise<{ deliveries: WebhookDeliveryWithAttempts[]; next: DeliveryListPosition | undefined }> {
    const { after } = page;
    const rows = await query<DeliveryRow>(
      this.#db,
      `SELECT * FROM webhook_deliveries WHERE account_id = $1
         AND ($2::bigint IS NULL OR created_at < $2 OR (created_at = $2 AND id < $3))
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [accountId, after?.createdAt ?? null, after?.id ?? null, Math.trunc(page.limit) + 1],
    );
    const deliveries = await this.#withAttempts(rows.slice(0, page.limit));
    const last = deliveries.at(-1);
    const more = rows.length > page.limit && last !== undefined;
    return { deliveries, next: more ? { createdAt: last.createdAt, id: last.id } : undefined };
  }

  /** The deliveries with their attempts, read in one query, in the deliveries' order. */
  async #withAttempts(rows: DeliveryRow[]): Promise<WebhookDeliveryWithAttempts[]> {
    if (rows.length === 0) return [];
    const attempts = await query<AttemptRow>(
      this.#db,
      'SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1) ORDER BY delivery_id, attempt',
      [rows.map((row) => row.id)],
    );
    return rows.map((row) => ({
      ...toDelivery(row),
      attemptLog: attempts.filter((a) => a.delivery_id === row.id).map(toAttempt),
    }));
  }

  /**
   * Many dispatchers share this store: a process starting must not take back what a live one is sending,
   * so only claims older than the stale age (their process died) go back to pending.
   */
  async resetSending(now: number): Promise<number> {
    return execute(
      this.#db,
      `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = $1, updated_at = $1
       WHERE state = 'sending' AND updated_at <= $2`,
      [now, now - this.#staleSendingMs],
    );
  }

  async replay(id: string, now: number, accountId?: string): Promise<WebhookDelivery | undefined> {
    const [row] = await query<DeliveryRow>(
      this.#db,
      `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = $1, updated_at = $1
       WHERE id = $2 AND state IN ('succeeded', 'failed') AND ($3::text IS NULL OR account_id = $3)
       RETURNING *`,
      [now, id, accountId ?? null],
    );
    return row ? toDelivery(row) : undefined;
  }

  async #finish(id: string, state: WebhookDeliveryState, now: number): Promise<void> {
    await execute(
      this.#db,
      'UPDATE webhook_deliveries SET state = $1, next_attempt_at = NULL, updated_at = $2 WHERE id = $3',
      [state, now, id],
    );
  }
}
