/**
 * The scaled-out mode's database: PostgreSQL through node-postgres' pool, shared by every API and worker
 * process. Migrations are ordered SQL strings applied once each, tracked in `presso_migrations`, under an
 * advisory lock so processes starting together migrate once. `query` is how the stores read and write:
 * the row type is stated once per query and the one cast lives here. BIGINT columns (timestamps in
 * milliseconds, byte counters) come back as numbers: every value this service stores fits in 2^53.
 */
import pg from 'pg';
import { PG_MIGRATIONS } from './migrations.ts';

export type Queryable = pg.Pool | pg.PoolClient;

const INT8 = 20;

/** node-postgres' own parsers, but INT8 as a number (its default is a string, to be safe past 2^53). */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
};

export async function openPostgres(
  connectionString: string,
  options: { max?: number } = {},
): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString, max: options.max ?? 10, types });
  // An idle client's error (the server restarted) is reported here; without a listener it would end the process.
  pool.on('error', () => {});
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  return pool;
}

/** Every row of `sql`, typed as `T` (the caller's statement of the columns it selects). */
export async function query<T>(db: Queryable, sql: string, params: unknown[] = []): Promise<T[]> {
  const result = await db.query(sql, params);
  return result.rows as T[];
}

/** Rows changed by a statement that returns none. */
export async function execute(db: Queryable, sql: string, params: unknown[] = []): Promise<number> {
  return (await db.query(sql, params)).rowCount ?? 0;
}

/** Runs `fn` in a transaction on one client of the pool; rolls back when it throws. */
export async function transaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // The pool listens for errors on idle clients only: a connection lost while checked out (a failover, an
  // idle-in-transaction time-out) would otherwise be an unhandled 'error' event that ends the process. The
  // query in flight rejects with the same error, so noting it is enough.
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    if (lost === undefined) await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.off('error', onError);
    // A broken connection is destroyed instead of going back to the pool.
    client.release(lost);
  }
}

/** A fixed key for the migration lock (any 64-bit number the deployment does not use elsewhere). */
const MIGRATION_LOCK = 0x7072_6573_736f;

async function migrate(pool: pg.Pool): Promise<void> {
  await transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS presso_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)',
    );
    const [row] = await query<{ version: number | null }>(
      client,
      'SELECT MAX(version) AS version FROM presso_migrations',
    );
    for (let version = row?.version ?? 0; version < PG_MIGRATIONS.length; version++) {
      await client.query(PG_MIGRATIONS[version] as string);
      await client.query('INSERT INTO presso_migrations (version, applied_at) VALUES ($1, $2)', [
        version + 1,
        Date.now(),
      ]);
    }
  });
}
