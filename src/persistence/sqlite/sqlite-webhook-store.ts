/**
 * Webhook deliveries in the embedded database (tables `webhook_deliveries` and `webhook_attempts`).
 * `node:sqlite` is synchronous, so every method is a short synchronous statement or transaction
 * wrapped in a promise; nothing interleaves inside one.
 */
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
import { all, type Database, get, run, transaction } from './database.ts';

export class SqliteWebhookStore implements WebhookStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async create(delivery: NewWebhookDelivery, now: number): Promise<WebhookDelivery> {
    // all(), never get(), for a write with RETURNING: see `all` in database.ts (a full disk).
    const [row] = all<DeliveryRow>(
      this.#db,
      `INSERT INTO webhook_deliveries
         (id, job_id, account_id, url, payload, state, attempts, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?) ON CONFLICT(id) DO NOTHING RETURNING *`,
      delivery.id,
      delivery.jobId,
      delivery.accountId,
      delivery.url,
      delivery.payload,
      now,
      now,
      now,
    );
    // Nothing returned: a delivery of that id exists already (a report repeated after a crash).
    const stored =
      row ?? get<DeliveryRow>(this.#db, 'SELECT * FROM webhook_deliveries WHERE id = ?', delivery.id);
    if (!stored) throw new Error(`webhook delivery ${delivery.id} was not stored`);
    return toDelivery(stored);
  }

  async get(id: string): Promise<WebhookDelivery | undefined> {
    const row = get<DeliveryRow>(this.#db, 'SELECT * FROM webhook_deliveries WHERE id = ?', id);
    return row ? toDelivery(row) : undefined;
  }

  async claimDue(now: number, limit: number): Promise<WebhookDelivery[]> {
    if (limit <= 0) return [];
    // One UPDATE ... RETURNING is atomic: a row is claimed by exactly one caller.
    const rows = all<DeliveryRow>(
      this.#db,
      `UPDATE webhook_deliveries SET state = 'sending', updated_at = ?
       WHERE id IN (
         SELECT id FROM webhook_deliveries
         WHERE state = 'pending' AND next_attempt_at <= ?
         ORDER BY next_attempt_at, created_at LIMIT ?
       )
       RETURNING *`,
      now,
      now,
      limit,
    );
    // RETURNING does not promise an order.
    return rows.map(toDelivery).sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0));
  }

  async claim(id: string, dueAt: number, now: number): Promise<WebhookDelivery | undefined> {
    const [row] = all<DeliveryRow>(
      this.#db,
      `UPDATE webhook_deliveries SET state = 'sending', updated_at = ?
       WHERE id = ? AND next_attempt_at = ? AND state IN ('pending', 'sending') RETURNING *`,
      now,
      id,
      dueAt,
    );
    return row ? toDelivery(row) : undefined;
  }

  async listDue(before: number, limit: number): Promise<WebhookDelivery[]> {
    const rows = all<DeliveryRow>(
      this.#db,
      `SELECT * FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= ?
       ORDER BY next_attempt_at, created_at LIMIT ?`,
      before,
      Math.max(0, limit),
    );
    return rows.map(toDelivery);
  }

  async nextDueAt(): Promise<number | undefined> {
    const row = get<{ due: number | null }>(
      this.#db,
      `SELECT MIN(next_attempt_at) AS due FROM webhook_deliveries WHERE state = 'pending'`,
    );
    return row?.due ?? undefined;
  }

  async recordAttempt(id: string, attempt: NewWebhookAttempt): Promise<number> {
    return transaction(this.#db, () => {
      const [row] = all<{ attempt: number }>(
        this.#db,
        `INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, error, duration_ms)
         VALUES (?, (SELECT COALESCE(MAX(attempt), 0) + 1 FROM webhook_attempts WHERE delivery_id = ?), ?, ?, ?, ?)
         RETURNING attempt`,
        id,
        id,
        attempt.at,
        attempt.statusCode ?? null,
        attempt.error ?? null,
        Math.max(0, Math.round(attempt.durationMs)),
      );
      if (!row) throw new Error(`webhook attempt for ${id} was not stored`);
      run(
        this.#db,
        'UPDATE webhook_deliveries SET attempts = attempts + 1, updated_at = ? WHERE id = ?',
        attempt.at,
        id,
      );
      return row.attempt;
    });
  }

  async markSucceeded(id: string, now: number): Promise<void> {
    this.#finish(id, 'succeeded', now);
  }

  async markFailed(id: string, now: number): Promise<void> {
    this.#finish(id, 'failed', now);
  }

  async reschedule(id: string, nextAttemptAt: number, now: number): Promise<void> {
    run(
      this.#db,
      `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ?, updated_at = ? WHERE id = ?`,
      nextAttemptAt,
      now,
      id,
    );
  }

  async listForJob(jobId: string, accountId?: string): Promise<WebhookDeliveryWithAttempts[]> {
    const deliveries = all<DeliveryRow>(
      this.#db,
      `SELECT * FROM webhook_deliveries WHERE job_id = ? AND (? IS NULL OR account_id = ?)
       ORDER BY created_at, id`,
      jobId,
      accountId ?? null,
      accountId ?? null,
    );
    return deliveries.map((row) => this.#withAttempts(row));
  }

  async listForAccount(
    accountId: string,
    page: { limit: number; after?: DeliveryListPosition | undefined },
  ): Promise<{ deliveries: WebhookDeliveryWithAttempts[]; next: DeliveryListPosition | undefined }> {
    const { after } = page;
    const rows = all<DeliveryRow>(
      this.#db,
      `SELECT * FROM webhook_deliveries WHERE account_id = ?1
         AND (?2 IS NULL OR created_at < ?2 OR (created_at = ?2 AND id < ?3))
       ORDER BY created_at DESC, id DESC LIMIT ?4`,
      accountId,
      after?.createdAt ?? null,
      after?.id ?? null,
      Math.trunc(page.limit) + 1,
    );
    const deliveries = rows.slice(0, page.limit).map((row) => this.#withAttempts(row));
    const last = deliveries.at(-1);
    const more = rows.length > page.limit && last !== undefined;
    return { deliveries, next: more ? { createdAt: last.createdAt, id: last.id } : undefined };
  }

  #withAttempts(row: DeliveryRow): WebhookDeliveryWithAttempts {
    return {
      ...toDelivery(row),
      attemptLog: all<AttemptRow>(
        this.#db,
        'SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt',
        row.id,
      ).map(toAttempt),
    };
  }

  async resetSending(now: number): Promise<number> {
    const result = run(
      this.#db,
      `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ?, updated_at = ? WHERE state = 'sending'`,
      now,
      now,
    );
    return Number(result.changes);
  }

  async replay(id: string, now: number, accountId?: string): Promise<WebhookDelivery | undefined> {
    const [row] = all<DeliveryRow>(
      this.#db,
      `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = ?, updated_at = ?
       WHERE id = ? AND state IN ('succeeded', 'failed') AND (? IS NULL OR account_id = ?)
       RETURNING *`,
      now,
      now,
      id,
      accountId ?? null,
      accountId ?? null,
    );
    return row ? toDelivery(row) : undefined;
  }

  #finish(id: string, state: WebhookDeliveryState, now: number): void {
    run(
      this.#db,
      'UPDATE webhook_deliveries SET state = ?, next_attempt_at = NULL, updated_at = ? WHERE id = ?',
      state,
      now,
      id,
    );
  }
}
