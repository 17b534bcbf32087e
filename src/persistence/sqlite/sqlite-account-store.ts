/**
 * Accounts, their API keys (hashes only) and usage counters in the embedded database (tables
 * `accounts`, `api_keys`, `usage`).
 */
import type {
  Account,
  AccountStore,
  ApiKeyRecord,
  DailyUsage,
  DailyUsageDelta,
  KeyOwner,
  Usage,
} from '../../accounts/account-store.ts';
import {
  type AccountRow,
  type DailyUsageRow,
  KEY_COLUMNS,
  type KeyRow,
  parseScopes,
  toAccount,
  toDailyUsage,
  toKey,
} from '../rows.ts';
import { all, type Database, get, run, transaction } from './database.ts';

export class SqliteAccountStore implements AccountStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async createAccount(a: Account, firstKey: { key: ApiKeyRecord; hash: string }): Promise<void> {
    transaction(this.#db, () => {
      run(
        this.#db,
        'INSERT INTO accounts (id, name, rate_limit, webhook_secret, created_at) VALUES (?, ?, ?, ?, ?)',
        a.id,
        a.name,
        a.rateLimit,
        a.webhookSecret,
        a.createdAt,
      );
      run(this.#db, 'INSERT INTO usage (account_id) VALUES (?)', a.id);
      this.#insertKey(firstKey.key, firstKey.hash);
    });
  }

  async getAccount(id: string): Promise<Account | undefined> {
    const row = get<AccountRow>(this.#db, 'SELECT * FROM accounts WHERE id = ?', id);
    return row ? toAccount(row) : undefined;
  }

  async listAccounts(): Promise<Account[]> {
    return all<AccountRow>(this.#db, 'SELECT * FROM accounts ORDER BY created_at').map(toAccount);
  }

  async addKey(key: ApiKeyRecord, hash: string): Promise<void> {
    this.#insertKey(key, hash);
  }

  #insertKey(key: ApiKeyRecord, hash: string): void {
    run(
      this.#db,
      'INSERT INTO api_keys (id, account_id, name, prefix, scopes, hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      key.id,
      key.accountId,
      key.name,
      key.prefix,
      key.scopes.join(' '),
      hash,
      key.createdAt,
    );
  }

  async listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const rows = all<KeyRow>(
      this.#db,
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at, id`,
      accountId,
    );
    return rows.map(toKey);
  }

  async revokeKey(keyId: string, at: number, accountId?: string): Promise<boolean> {
    const result = run(
      this.#db,
      'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND account_id = COALESCE(?, account_id)',
      at,
      keyId,
      accountId ?? null,
    );
    return Number(result.changes) > 0;
  }

  async findByKeyHash(hash: string): Promise<KeyOwner | undefined> {
    const row = get<AccountRow & { key_id: string; key_scopes: string; key_last_used_at: number | null }>(
      this.#db,
      `SELECT a.*, k.id AS key_id, k.scopes AS key_scopes, k.last_used_at AS key_last_used_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.hash = ? AND k.revoked_at IS NULL`,
      hash,
    );
    if (!row) return undefined;
    const { key_id, key_scopes, key_last_used_at, ...account } = row;
    return {
      account: toAccount(account),
      keyId: key_id,
      scopes: parseScopes(key_scopes),
      lastUsedAt: key_last_used_at ?? undefined,
    };
  }

  async touchKey(keyId: string, at: number, unlessAfter: number): Promise<void> {
    run(
      this.#db,
      'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)',
      at,
      keyId,
      unlessAfter,
    );
  }

  async updateAccount(
    id: string,
    changes: { rateLimit?: number; disabledAt?: number | null },
  ): Promise<boolean> {
    const result = run(
      this.#db,
      `UPDATE accounts SET rate_limit = COALESCE(?, rate_limit),
         disabled_at = CASE WHEN ? THEN ? ELSE disabled_at END WHERE id = ?`,
      changes.rateLimit ?? null,
      changes.disabledAt === undefined ? 0 : 1,
      changes.disabledAt ?? null,
      id,
    );
    return Number(result.changes) > 0;
  }

  async rotateWebhookSecret(
    id: string,
    secret: string,
    previousValidUntil: number,
    at: number,
  ): Promise<boolean> {
    const result = run(
      this.#db,
      `UPDATE accounts SET webhook_secret_previous = webhook_secret, webhook_secret = ?,
         webhook_secret_previous_until = ?, webhook_secret_rotated_at = ? WHERE id = ?`,
      secret,
      previousValidUntil,
      at,
      id,
    );
    return Number(result.changes) > 0;
  }

  async addUsage(accountId: string, d: Partial<Usage>): Promise<void> {
    run(
      this.#db,
      `UPDATE usage SET requests = requests + ?, jobs = jobs + ?, bytes_in = bytes_in + ?, bytes_out = bytes_out + ?
         WHERE account_id = ?`,
      d.requests ?? 0,
      d.jobs ?? 0,
      d.bytesIn ?? 0,
      d.bytesOut ?? 0,
      accountId,
    );
  }

  async getUsage(accountId: string): Promise<Usage> {
    const row = get<{ requests: number; jobs: number; bytes_in: number; bytes_out: number }>(
      this.#db,
      'SELECT requests, jobs, bytes_in, bytes_out FROM usage WHERE account_id = ?',
      accountId,
    );
    return {
      requests: row?.requests ?? 0,
      jobs: row?.jobs ?? 0,
      bytesIn: row?.bytes_in ?? 0,
      bytesOut: row?.bytes_out ?? 0,
    };
  }

  async addDailyUsage(accountId: string, date: string, kind: string, d: DailyUsageDelta): Promise<void> {
    run(
      this.#db,
      `INSERT INTO usage_daily (account_id, date, kind, requests, jobs, failures, bytes_in, bytes_out)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, date, kind) DO UPDATE SET requests = requests + excluded.requests,
         jobs = jobs + excluded.jobs, failures = failures + excluded.failures,
         bytes_in = bytes_in + excluded.bytes_in, bytes_out = bytes_out + excluded.bytes_out`,
      accountId,
      date,
      kind,
      d.requests ?? 0,
      d.jobs ?? 0,
      d.failures ?? 0,
      d.bytesIn ?? 0,
      d.bytesOut ?? 0,
    );
  }

  async listDailyUsage(accountId: string, fromDate: string): Promise<DailyUsage[]> {
    return all<DailyUsageRow>(
      this.#db,
      `SELECT date, kind, requests, jobs, failures, bytes_in, bytes_out FROM usage_daily
       WHERE account_id = ? AND date >= ? ORDER BY date, kind`,
      accountId,
      fromDate,
    ).map(toDailyUsage);
  }
}
