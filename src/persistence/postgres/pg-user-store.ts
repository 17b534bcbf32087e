/** Dashboard users and their invites in PostgreSQL: the twin of sqlite-user-store.ts. */
import type pg from 'pg';
import type { InviteRecord, UserRecord, UserRole, UserStore } from '../../users/user-store.ts';
import { type InviteRow, toInvite, toUser, type UserRow } from '../rows.ts';
import { execute, type Queryable, query, transaction } from './database.ts';

export class PgUserStore implements UserStore {
  readonly #db: pg.Pool;

  constructor(db: pg.Pool) {
    this.#db = db;
  }

  async createUser(user: UserRecord): Promise<void> {
    await insertUser(this.#db, user);
  }

  async getUser(id: string): Promise<UserRecord | undefined> {
    const [row] = await query<UserRow>(this.#db, 'SELECT * FROM users WHERE id = $1', [id]);
    return row ? toUser(row) : undefined;
  }

  async findByEmail(email: string): Promise<UserRecord | undefined> {
    const [row] = await query<UserRow>(this.#db, 'SELECT * FROM users WHERE email = $1', [email]);
    return row ? toUser(row) : undefined;
  }

  async listUsers(accountId: string): Promise<UserRecord[]> {
    const rows = await query<UserRow>(
      this.#db,
      'SELECT * FROM users WHERE account_id = $1 ORDER BY created_at, id',
      [accountId],
    );
    return rows.map(toUser);
  }

  async setRole(id: string, role: UserRole): Promise<boolean> {
    return (await execute(this.#db, 'UPDATE users SET role = $1 WHERE id = $2', [role, id])) > 0;
  }

  async deleteUser(id: string): Promise<boolean> {
    return (await execute(this.#db, 'DELETE FROM users WHERE id = $1', [id])) > 0;
  }

  async recordSignIn(id: string, at: number): Promise<void> {
    await execute(this.#db, 'UPDATE users SET last_sign_in_at = $1 WHERE id = $2', [at, id]);
  }

  async createInvite(i: InviteRecord): Promise<void> {
    await execute(
      this.#db,
      `INSERT INTO invites (token_hash, account_id, email, role, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [i.tokenHash, i.accountId, i.email, i.role, i.createdAt, i.expiresAt],
    );
  }

  async findInvite(tokenHash: string, now: number): Promise<InviteRecord | undefined> {
    const [row] = await query<InviteRow>(
      this.#db,
      'SELECT * FROM invites WHERE token_hash = $1 AND accepted_at IS NULL AND expires_at > $2',
      [tokenHash, now],
    );
    return row ? toInvite(row) : undefined;
  }

  async acceptInvite(tokenHash: string, user: UserRecord, now: number): Promise<boolean> {
    return transaction(this.#db, async (client) => {
      // The row lock of the UPDATE makes a concurrent acceptance wait, then find the invite used.
      const used = await execute(
        client,
        'UPDATE invites SET accepted_at = $1 WHERE token_hash = $2 AND accepted_at IS NULL AND expires_at > $1',
        [now, tokenHash],
      );
      if (used === 0) return false;
      await insertUser(client, user);
      return true;
    });
  }
}

async function insertUser(db: Queryable, u: UserRecord): Promise<void> {
  await execute(
    db,
    `INSERT INTO users (id, account_id, email, role, password_hash, created_at, last_sign_in_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [u.id, u.accountId, u.email, u.role, u.passwordHash, u.createdAt, u.lastSignInAt ?? null],
  );
}
