/** Dashboard sessions in the embedded database (table `sessions`; ids stored as SHA-256 hashes only). */
import type { SessionRecord, SessionStore } from '../../users/user-store.ts';
import { type SessionRow, toSession } from '../rows.ts';
import { type Database, get, run } from './database.ts';

export class SqliteSessionStore implements SessionStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async createSession(s: SessionRecord): Promise<void> {
    run(
      this.#db,
      'INSERT INTO sessions (id_hash, user_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?)',
      s.idHash,
      s.userId,
      s.createdAt,
      s.lastSeenAt,
      s.expiresAt,
    );
  }

  async findSession(idHash: string): Promise<SessionRecord | undefined> {
    const row = get<SessionRow>(this.#db, 'SELECT * FROM sessions WHERE id_hash = ?', idHash);
    return row ? toSession(row) : undefined;
  }

  async touchSession(idHash: string, at: number): Promise<void> {
    run(this.#db, 'UPDATE sessions SET last_seen_at = MAX(last_seen_at, ?) WHERE id_hash = ?', at, idHash);
  }

  async deleteSession(idHash: string): Promise<void> {
    run(this.#db, 'DELETE FROM sessions WHERE id_hash = ?', idHash);
  }

  async deleteUserSessions(userId: string): Promise<number> {
    return Number(run(this.#db, 'DELETE FROM sessions WHERE user_id = ?', userId).changes);
  }

  async deleteExpired(idleBefore: number, now: number): Promise<number> {
    return Number(
      run(this.#db, 'DELETE FROM sessions WHERE last_seen_at < ? OR expires_at <= ?', idleBefore, now)
        .changes,
    );
  }
}
