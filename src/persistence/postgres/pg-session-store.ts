/** Dashboard sessions in PostgreSQL: the twin of sqlite-session-store.ts. */
import type pg from 'pg';
import type { SessionRecord, SessionStore } from '../../users/user-store.ts';
import { type SessionRow, toSession } from '../rows.ts';
import { execute, query } from './database.ts';

export class PgSessionStore implements SessionStore {
  readonly #db: pg.Pool;

  constructor(db: pg.Pool) {
    this.#db = db;
  }

  async createSession(s: SessionRecord): Promise<void> {
    await execute(
      this.#db,
      'INSERT INTO sessions (id_hash, user_id, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [s.idHash, s.userId, s.createdAt, s.lastSeenAt, s.expiresAt],
    );
  }

  async findSession(idHash: string): Promise<SessionRecord | undefined> {
    const [row] = await query<SessionRow>(this.#db, 'SELECT * FROM sessions WHERE id_hash = $1', [idHash]);
    return row ? toSession(row) : undefined;
  }

  async touchSession(idHash: string, at: number): Promise<void> {
    await execute(
      this.#db,
      'UPDATE sessions SET last_seen_at = GREATEST(last_seen_at, $1) WHERE id_hash = $2',
      [at, idHash],
    );
  }

  async deleteSession(idHash: string): Promise<void> {
    await execute(this.#db, 'DELETE FROM sessions WHERE id_hash = $1', [idHash]);
  }

  async deleteUserSessions(userId: string): Promise<number> {
    return execute(this.#db, 'DELETE FROM sessions WHERE user_id = $1', [userId]);
  }

  async deleteExpired(idleBefore: number, now: number): Promise<number> {
    return execute(this.#db, 'DELETE FROM sessions WHERE last_seen_at < $1 OR expires_at <= $2', [
      idleBefore,
      now,
    ]);
  }
}
