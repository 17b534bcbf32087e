/**
 * Accounts, their API keys (hashes only) and usage counters in the embedded database (tables
 * `accounts`, `api_keys`, `usage`).
 */
import type { Account, AccountStore, ApiKeyRecord, KeyScope, Usage } from '../../accounts/account-store.ts';
import { type AccountRow, formatScopes, type KeyRow, parseScopes, toAccount, toKey } from '../rows.ts';
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
      'INSERT INTO api_keys (id, account_id, prefix, hash, created_at, scopes) VALUES (?, ?, ?, ?, ?, ?)',
      key.id,
      key.accountId,
      key.prefix,
      hash,
      key.createdAt,
      formatScopes(key.scopes),
    );
  }

  async listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const rows = all<KeyRow>(
      this.#db,
      'SELECT id, account_id, prefix, created_at, revoked_at, scopes FROM api_keys WHERE account_id = ? ORDER BY created_at',
      accountId,
    );
    return rows.map(toKey);
  }

  async revokeKey(keyId: string, at: number): Promise<boolean> {
    const result = run(
      this.#db,
      'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?',
      at,
      keyId,
    );
    return Number(result.changes) > 0;
  }

  async findByKeyHash(
    hash: string,
  ): Promise<{ account: Account; keyId: string; scopes: KeyScope[] } | undefined> {
    const row = get<AccountRow & { key_id: string; key_scopes: string }>(
      this.#db,
      `SELECT a.*, k.id AS key_id, k.scopes AS key_scopes FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.hash = ? AND k.revoked_at IS NULL`,
      hash,
    );
    return row
      ? { account: toAccount(row), keyId: row.key_id, scopes: parseScopes(row.key_scopes) }
      : undefined;
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
}
