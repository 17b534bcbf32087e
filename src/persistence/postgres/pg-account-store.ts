/** Accounts, API keys (hashes only) and usage counters in PostgreSQL: the twin of sqlite-account-store.ts. */
import type pg from 'pg';
import type { Account, AccountStore, ApiKeyRecord, KeyScope, Usage } from '../../accounts/account-store.ts';
import { type AccountRow, formatScopes, type KeyRow, parseScopes, toAccount, toKey } from '../rows.ts';
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
      'SELECT id, account_id, prefix, created_at, revoked_at, scopes FROM api_keys WHERE account_id = $1 ORDER BY created_at, id',
      [accountId],
    );
    return rows.map(toKey);
  }

  async revokeKey(keyId: string, at: number): Promise<boolean> {
    const changed = await execute(
      this.#db,
      'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2',
      [at, keyId],
    );
    return changed > 0;
  }

  async findByKeyHash(
    hash: string,
  ): Promise<{ account: Account; keyId: string; scopes: KeyScope[] } | undefined> {
    const [row] = await query<AccountRow & { key_id: string; key_scopes: string }>(
      this.#db,
      `SELECT a.*, k.id AS key_id, k.scopes AS key_scopes FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.hash = $1 AND k.revoked_at IS NULL`,
      [hash],
    );
    return row
      ? { account: toAccount(row), keyId: row.key_id, scopes: parseScopes(row.key_scopes) }
      : undefined;
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
}

async function insertKey(db: Queryable, key: ApiKeyRecord, hash: string): Promise<void> {
  await execute(
    db,
    'INSERT INTO api_keys (id, account_id, prefix, hash, created_at, scopes) VALUES ($1, $2, $3, $4, $5, $6)',
    [key.id, key.accountId, key.prefix, hash, key.createdAt, formatScopes(key.scopes)],
  );
}
