/**
 * The dashboard's migrations (issue 22) on both databases, over rows written before them: an existing API key
 * keeps working with both scopes (`jobs`, `connectors`), an empty name and no last use, and an existing job is found by the
 * job list's filters (its kind, name and size copied out of the input's JSON).
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { AccountStore } from '../../src/accounts/account-store.ts';
import { JobSecretBox } from '../../src/jobs/job-secrets.ts';
import type { JobStore } from '../../src/jobs/job-store.ts';
import { openPostgres } from '../../src/persistence/postgres/database.ts';
import { PG_MIGRATIONS } from '../../src/persistence/postgres/migrations.ts';
import { PgAccountStore } from '../../src/persistence/postgres/pg-account-store.ts';
import { PgJobStore } from '../../src/persistence/postgres/pg-job-store.ts';
import { openDatabase } from '../../src/persistence/sqlite/database.ts';
import { MIGRATIONS } from '../../src/persistence/sqlite/migrations.ts';
import { SqliteAccountStore } from '../../src/persistence/sqlite/sqlite-account-store.ts';
import { SqliteJobStore } from '../../src/persistence/sqlite/sqlite-job-store.ts';
import { useScratch } from '../support/scratch.ts';
import { testPostgres } from '../support/services.ts';

/** The index of the dashboard's keys migration: the database is built as it was just before it. */
function keysMigration(migrations: readonly string[]): number {
  const index = migrations.findIndex((sql) => /ADD COLUMN last_used_at\b/.test(sql));
  assert.ok(index > 0, 'the key names migration is there');
  return index;
}

const jobId = randomUUID();
const input = JSON.stringify({ name: 'old_photo.jpg', size: 1234, sha1: 'a'.repeat(40), type: 'image' });
/** Statements as the code before the migrations wrote rows; `$n` placeholders are rewritten for SQLite. */
const LEGACY = [
  [
    'INSERT INTO accounts (id, name, rate_limit, webhook_secret, created_at) VALUES ($1, $2, $3, $4, $5)',
    ['acct', 'old', 10, 'whsec_x', 1],
  ],
  [
    'INSERT INTO api_keys (id, account_id, prefix, hash, created_at) VALUES ($1, $2, $3, $4, $5)',
    ['key_old', 'acct', 'psk_old', 'hash-old', 2],
  ],
  [
    `INSERT INTO jobs (id, account_id, status, source, params, input, created_at, updated_at)
       VALUES ($1, $2, 'enqueued', '{"type":"upload"}', '{}', $3, 3, 3)`,
    [jobId, 'acct', input],
  ],
] as const;

async function assertMigrated(accounts: AccountStore, jobs: JobStore): Promise<void> {
  const found = await accounts.findByKeyHash('hash-old');
  assert.deepEqual(found?.scopes, ['jobs', 'connectors']);
  assert.deepEqual(
    (await accounts.listKeys('acct')).map((k) => [k.id, k.name, k.scopes, k.lastUsedAt]),
    [['key_old', '', ['jobs', 'connectors'], undefined]],
  );
  const page = await jobs.list(
    'acct',
    { kind: 'image', q: 'PHOTO', minSize: 1234, maxSize: 1234 },
    { limit: 5 },
  );
  assert.deepEqual(
    page.jobs.map((j) => j.id),
    [jobId],
  );
}

describe('the dashboard migrations', () => {
  const scratch = useScratch('presso-dashboard-migration-');
  let database: Awaited<ReturnType<typeof testPostgres>>;
  before(async () => {
    database = await testPostgres();
  });
  after(() => database?.close());

  test('SQLite', async () => {
    const path = `${scratch()}/presso.db`;
    const old = new DatabaseSync(path);
    const before = keysMigration(MIGRATIONS);
    for (const sql of MIGRATIONS.slice(0, before)) old.exec(sql);
    old.exec(`PRAGMA user_version = ${before}`);
    for (const [sql, values] of LEGACY) old.prepare(sql.replace(/\$\d/g, '?')).run(...values);
    old.close();
    const db = openDatabase(path);
    try {
      await assertMigrated(
        new SqliteAccountStore(db),
        new SqliteJobStore(db, new JobSecretBox(randomBytes(32))),
      );
    } finally {
      db.close();
    }
  });

  test('PostgreSQL', async () => {
    const url = await database.schemaUrl();
    const old = new pg.Client({ connectionString: url });
    await old.connect();
    try {
      await old.query(
        'CREATE TABLE presso_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)',
      );
      for (const [index, sql] of PG_MIGRATIONS.slice(0, keysMigration(PG_MIGRATIONS)).entries()) {
        await old.query(sql);
        await old.query('INSERT INTO presso_migrations VALUES ($1, 0)', [index + 1]);
      }
      for (const [sql, values] of LEGACY) await old.query(sql, [...values]);
    } finally {
      await old.end();
    }
    const pool = await openPostgres(url, { max: 2 });
    try {
      await assertMigrated(new PgAccountStore(pool), new PgJobStore(pool, new JobSecretBox(randomBytes(32))));
    } finally {
      await pool.end();
    }
  });
});
