/** Dashboard users and their invites in the embedded database (tables `users`, `invites`). */
import type { InviteRecord, UserRecord, UserRole, UserStore } from '../../users/user-store.ts';
import { type InviteRow, toInvite, toUser, type UserRow } from '../rows.ts';
import { all, type Database, get, run, transaction } from './database.ts';

export class SqliteUserStore implements UserStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async createUser(user: UserRecord): Promise<void> {
    this.#insertUser(user);
  }

  #insertUser(u: UserRecord): void {
    run(
      this.#db,
      `INSERT INTO users (id, account_id, email, role, password_hash, created_at, last_sign_in_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      u.id,
      u.accountId,
      u.email,
      u.role,
      u.passwordHash,
      u.createdAt,
      u.lastSignInAt ?? null,
    );
  }

  async getUser(id: string): Promise<UserRecord | undefined> {
    const row = get<UserRow>(this.#db, 'SELECT * FROM users WHERE id = ?', id);
    return row ? toUser(row) : undefined;
  }

  async findByEmail(email: string): Promise<UserRecord | undefined> {
    const row = get<UserRow>(this.#db, 'SELECT * FROM users WHERE email = ?', email);
    return row ? toUser(row) : undefined;
  }

  async listUsers(accountId: string): Promise<UserRecord[]> {
    return all<UserRow>(
      this.#db,
      'SELECT * FROM users WHERE account_id = ? ORDER BY created_at, id',
      accountId,
    ).map(toUser);
  }

  async setRole(id: string, role: UserRole): Promise<boolean> {
    return Number(run(this.#db, 'UPDATE users SET role = ? WHERE id = ?', role, id).changes) > 0;
  }

  async deleteUser(id: string): Promise<boolean> {
    return Number(run(this.#db, 'DELETE FROM users WHERE id = ?', id).changes) > 0;
  }

  async recordSignIn(id: string, at: number): Promise<void> {
    run(this.#db, 'UPDATE users SET last_sign_in_at = ? WHERE id = ?', at, id);
  }

  async createInvite(i: InviteRecord): Promise<void> {
    run(
      this.#db,
      `INSERT INTO invites (token_hash, account_id, email, role, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
      i.tokenHash,
      i.accountId,
      i.email,
      i.role,
      i.createdAt,
      i.expiresAt,
    );
  }

  async findInvite(tokenHash: string, now: number): Promise<InviteRecord | undefined> {
    const row = get<InviteRow>(
      this.#db,
      'SELECT * FROM invites WHERE token_hash = ? AND accepted_at IS NULL AND expires_at > ?',
      tokenHash,
      now,
    );
    return row ? toInvite(row) : undefined;
  }

  async acceptInvite(tokenHash: string, user: UserRecord, now: number): Promise<boolean> {
    return transaction(this.#db, () => {
      const used = run(
        this.#db,
        'UPDATE invites SET accepted_at = ? WHERE token_hash = ? AND accepted_at IS NULL AND expires_at > ?',
        now,
        tokenHash,
        now,
      );
      if (Number(used.changes) === 0) return false;
      this.#insertUser(user);
      return true;
    });
  }
}
