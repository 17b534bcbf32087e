/**
 * The embedded default's database: one SQLite file (WAL) in the data directory, opened with the
 * built-in `node:sqlite`, so there is no native addon to build. Migrations are ordered SQL strings
 * applied once each, tracked by `PRAGMA user_version`. `all`, `get` and `run` are how the stores
 * query it: the row type is stated once per query, and the one cast lives here.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementResultingChanges } from 'node:sqlite';
import { MIGRATIONS } from './migrations.ts';

export type Database = DatabaseSync;

export function openDatabase(path: string): Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path, { timeout: 5000 });
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  // Deleted and overwritten values are zeroed in the pages that held them instead of lingering in their free
  // space (wiped job secrets, the plain text a migration removed). FAST: only where the page is written anyway.
  db.exec('PRAGMA secure_delete = FAST');
  migrate(db);
  return db;
}

/**
 * Every row of `sql`, typed as `T`. `T` is the caller's statement of the columns the SQL selects
 * (node:sqlite returns plain objects keyed by column name); nothing checks it at run time.
 *
 * The only way to read an `UPDATE` / `INSERT` / `DELETE ... RETURNING` outside a transaction: the
 * statement commits when it has stepped through all its rows, and only `all()` gets that far.
 * node:sqlite's `get()` stops after the first row, so the commit's error (SQLITE_FULL on a full disk)
 * is lost and a write that never happened is reported as done.
 */
export function all<T>(db: Database, sql: string, ...params: SQLInputValue[]): T[] {
  return db.prepare(sql).all(...params) as T[];
}

/**
 * The first row of a `SELECT`, typed as `T` (see `all`), or undefined when there is none.
 * Never for a statement that writes: see `all` for why.
 */
export function get<T>(db: Database, sql: string, ...params: SQLInputValue[]): T | undefined {
  return db.prepare(sql).get(...params) as T | undefined;
}

/** Runs a statement that returns no rows; `changes` counts the rows it wrote. */
export function run(db: Database, sql: string, ...params: SQLInputValue[]): StatementResultingChanges {
  return db.prepare(sql).run(...params);
}

function migrate(db: Database): void {
  const version0 = get<{ user_version: number }>(db, 'PRAGMA user_version')?.user_version ?? 0;
  for (let version = version0; version < MIGRATIONS.length; version++) {
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(MIGRATIONS[version]!);
      db.exec(`PRAGMA user_version = ${version + 1}`);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }
}

/** Runs `fn` in a write transaction. `node:sqlite` is synchronous, so nothing interleaves inside. */
export function transaction<T>(db: Database, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    // SQLite has already rolled back after some errors (SQLITE_FULL): a ROLLBACK then would throw and hide
    // the error that matters.
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
