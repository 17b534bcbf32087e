/** Accounts, API keys (hashes only) and usage counters in PostgreSQL: the twin of sqlite-account-store.ts. */
import type pg from 'pg';
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
import { execute, type Queryable, query, transaction } from './database.ts';

export class PgAccountStore implements AccountStore {
  readonly #db: pg.Pool;

  constructor(db: pg.Pool) {
    this.#db = db;
  }

  async createAccount(a: Account, firstKey: { key: ApiKeyRecord; hash: string }): Promise<void> {
    await transaction(this.#db, async (client) => {
      await execute(
        client,
        'INSERT INTO accounts (id, name, rate_limit, webhook_secret, created_at) VALUES ($1, $2, $3, $4, $5)',
        [a.id, a.name, a.rateLimit, a.webhookSecret, a.createdAt],
      );
      await execute(client, 'INSERT INTO usage (account_id) VALUES ($1)', [a.id]);
      await insertKey(client, firstKey.key, firstKey.hash);
    });
  }

  async getAccount(id: string): Promise<Account | undefined> {
    const [row] = await query<AccountRow>(this.#db, 'SELECT * FROM accounts WHERE id = $1', [id]);
    return row ? toAccount(row) : undefined;
  }

  async listAccounts(): Promise<Account[]> {
    return (await query<AccountRow>(this.#db, 'SELECT * FROM accounts ORDER BY created_at, id')).map(
      toAccount,
    );
  }

  async addKey(key: ApiKeyRecord, hash: string): Promise<void> {
    await insertKey(this.#db, key, hash);
  }

  async listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const rows = await query<KeyRow>(
      this.#db,
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, id`,
      [accountId],
    );
    return rows.map(toKey);
  }

  async revokeKey(keyId: string, at: number, accountId?: string): Promise<boolean> {
    const changed = await execute(
      this.#db,
      'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2 AND account_id = COALESCE($3, account_id)',
      [at, keyId, accountId ?? null],
    );
    return changed > 0;
  }

  async findByKeyHash(hash: string): Promise<KeyOwner | undefined> {
    const [row] = await query<
      AccountRow & { key_id: string; key_scopes: string; key_last_used_at: number | null }
    >(
      this.#db,
      `SELECT a.*, k.id AS key_id, k.scopes AS key_scopes, k.last_used_at AS key_last_used_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.hash = $1 AND k.revoked_at IS NULL`,
      [hash],
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
    await execute(
      this.#db,
      'UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at <= $3)',
      [at, keyId, unlessAfter],
    );
  }

  async updateAccount(
    id: string,
    changes: { rateLimit?: number; disabledAt?: number | null },
  ): Promise<boolean> {
    const changed = await execute(
      this.#db,
      `UPDATE accounts SET rate_limit = COALESCE($1, rate_limit),
         disabled_at = CASE WHEN $2 THEN $3 ELSE disabled_at END WHERE id = $4`,
      [changes.rateLimit ?? null, changes.disabledAt !== undefined, changes.disabledAt ?? null, id],
    );
    return changed > 0;
  }

  async rotateWebhookSecret(
    id: string,
    secret: string,
    previousValidUntil: number,
    at: number,
  ): Promise<boolean> {
    const changed = await execute(
      this.#db,
      `UPDATE accounts SET webhook_secret_previous = webhook_secret, webhook_secret = $1,
         webhook_secret_previous_until = $2, webhook_secret_rotated_at = $3 WHERE id = $4`,
      [secret, previousValidUntil, at, id],
    );
    return changed > 0;
  }

  async addUsage(accountId: string, d: Partial<Usage>): Promise<void> {
    await execute(
      this.#db,
      `UPDATE usage SET requests = requests + $1, jobs = jobs + $2, bytes_in = bytes_in + $3, bytes_out = bytes_out + $4
         WHERE account_id = $5`,
      [d.requests ?? 0, d.jobs ?? 0, d.bytesIn ?? 0, d.bytesOut ?? 0, accountId],
    );
  }

  async getUsage(accountId: string): Promise<Usage> {
    const [row] = await query<{ requests: number; jobs: number; bytes_in: number; bytes_out: number }>(
      this.#db,
      'SELECT requests, jobs, bytes_in, bytes_out FROM usage WHERE account_id = $1',
      [accountId],
    );
    return {
      requests: row?.requests ?? 0,
      jobs: row?.jobs ?? 0,
      bytesIn: row?.bytes_in ?? 0,
      bytesOut: row?.bytes_out ?? 0,
    };
  }

  async addDailyUsage(accountId: string, date: string, kind: string, d: DailyUsageDelta): Promise<void> {
    await execute(
      this.#db,
      `INSERT INTO usage_daily AS u (account_id, date, kind, requests, jobs, failures, bytes_in, bytes_out)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (account_id, date, kind) DO UPDATE SET requests = u.requests + excluded.requests,
         jobs = u.jobs + excluded.jobs, failures = u.failures + excluded.failures,
         bytes_in = u.bytes_in + excluded.bytes_in, bytes_out = u.bytes_out + excluded.bytes_out`,
      [accountId, date, kind, d.requests ?? 0, d.jobs ?? 0, d.failures ?? 0, d.bytesIn ?? 0, d.bytesOut ?? 0],
    );
  }

  async listDailyUsage(accountId: string, fromDate: string): Promise<DailyUsage[]> {
    const rows = await query<DailyUsageRow>(
      this.#db,
      `SELECT date, kind, requests, jobs, failures, bytes_in, bytes_out FROM usage_daily
       WHERE account_id = $1 AND date >= $2 ORDER BY date, kind COLLATE "C"`,
      [accountId, fromDate],
    );
    return rows.map(toDailyUsage);
  }
}

async function insertKey(db: Queryable, key: ApiKeyRecord, hash: string): Promise<void> {
  await execute(
    db,
    `INSERT INTO api_keys (id, account_id, name, prefix, scopes, hash, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [key.id, key.accountId, key.name, key.prefix, key.scopes.join(' '), hash, key.createdAt],
  );
}
