/**
 * The migration that took the caller's secrets out of job parameters, on both databases: rows written before it
 * held fetch headers and archive/PDF passwords in plain JSON. After it, no row holds them in `source` or `params`;
 * a finished job holds none at all; a job that had not ended keeps them (in `secrets`, until it ends) and its run
 * gets them back where they were.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { Job } from '../../src/jobs/job.ts';
import { JobSecretBox, revealSecrets } from '../../src/jobs/job-secrets.ts';
import type { JobStore } from '../../src/jobs/job-store.ts';
import { openPostgres, query } from '../../src/persistence/postgres/database.ts';
import { PG_MIGRATIONS } from '../../src/persistence/postgres/migrations.ts';
import { PgJobStore } from '../../src/persistence/postgres/pg-job-store.ts';
import { get, openDatabase } from '../../src/persistence/sqlite/database.ts';
import { MIGRATIONS } from '../../src/persistence/sqlite/migrations.ts';
import { SqliteJobStore } from '../../src/persistence/sqlite/sqlite-job-store.ts';
import { testPostgres } from '../support/services.ts';

const COLUMNS = 'id, account_id, status, source, params, attempts, created_at, updated_at, finished_at';

/** The index of the migration under test: the database is built as it was just before it. */
function secretsMigration(migrations: readonly string[]): number {
  const index = migrations.findIndex((sql) => /ADD COLUMN secrets\b/.test(sql));
  assert.ok(index > 0, 'the secrets migration is there');
  return index;
}

/** Jobs as the code before the migration wrote them: secrets in the source and the parameters. */
function legacyRows() {
  const plain = {
    finishedToken: `Bearer ${randomUUID()}`,
    finishedZip: `zip-${randomUUID()}`,
    queuedToken: `Bearer ${randomUUID()}`,
    queuedPdf: `pdf-${randomUUID()}`,
    processingZip: `zip-${randomUUID()}`,
  };
  const fetch = (headers: Record<string, string>) =>
    JSON.stringify({ type: 'fetch', url: 'https://x.test/a', headers });
  const rows = {
    finished: [
      randomUUID(),
      'failed',
      fetch({ Authorization: plain.finishedToken }),
      { archive: { password: plain.finishedZip } },
      1,
    ],
    queued: [
      randomUUID(),
      'enqueued',
      fetch({ Authorization: plain.queuedToken }),
      { pdf: { password: plain.queuedPdf } },
      null,
    ],
    processing: [
      randomUUID(),
      'processing',
      JSON.stringify({ type: 'upload' }),
      { archive: { password: plain.processingZip, deep: true } },
      null,
    ],
    plainFetch: [randomUUID(), 'enqueued', fetch({}), { image: { format: 'webp' } }, null],
  } as const;
  const values = Object.values(rows).map(([id, status, source, params, finishedAt]) => [
    id,
    'acct',
    status,
    source,
    JSON.stringify(params),
    0,
    1,
    1,
    finishedAt,
  ]);
  return { plain, rows, values };
}

/** Checks the migrated rows, ends the queued job, and returns the secrets no longer kept anywhere. */
async function assertMigrated(
  store: JobStore,
  box: JobSecretBox,
  rawRow: (id: string) => Promise<Record<string, unknown> | undefined>,
  { plain, rows }: ReturnType<typeof legacyRows>,
): Promise<string[]> {
  const ids = Object.fromEntries(Object.entries(rows).map(([name, row]) => [name, row[0]]));
  const job = async (id: string) => (await store.get(id)) as Job;
  for (const id of Object.values(ids)) {
    const { source, params } = (await rawRow(id)) as { source: string; params: string };
    for (const value of Object.values(plain)) {
      assert.ok(!`${source}${params}`.includes(value), `${id}: no secret left in source or params`);
    }
  }
  assert.equal((await rawRow(ids.finished!))?.secrets, null, 'a finished job keeps none');
  assert.equal((await rawRow(ids.plainFetch!))?.secrets, null, 'a fetch without headers had none');
  assert.deepEqual((await job(ids.plainFetch!)).params, { image: { format: 'webp' } });

  const queued = await job(ids.queued!);
  assert.deepEqual(queued.source, { type: 'fetch', url: 'https://x.test/a' });
  const revealed = revealSecrets(queued, box.open(queued.id, queued.sealedSecrets!));
  assert.deepEqual(revealed.source, {
    type: 'fetch',
    url: 'https://x.test/a',
    headers: { Authorization: plain.queuedToken },
  });
  assert.deepEqual(revealed.params, { pdf: { password: plain.queuedPdf } });

  const processing = await job(ids.processing!);
  assert.deepEqual(processing.params, { archive: { deep: true } });
  const run = revealSecrets(processing, box.open(processing.id, processing.sealedSecrets!));
  assert.deepEqual(run.params, { archive: { deep: true, password: plain.processingZip } });
  assert.deepEqual(run.source, { type: 'upload' });

  // Wiped when they end, like the secrets of new jobs.
  await store.fail(queued.id, { code: 'X', status: 422, message: 'x' });
  assert.equal((await rawRow(queued.id))?.secrets, null);
  return [plain.finishedToken, plain.finishedZip, plain.queuedToken, plain.queuedPdf];
}

describe('the job secrets migration', () => {
  let database: Awaited<ReturnType<typeof testPostgres>>;
  before(async () => {
    database = await testPostgres();
  });
  after(() => database?.close());

  test('SQLite', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'presso-secrets-migration-'));
    try {
      const path = join(dir, 'presso.db');
      const legacy = legacyRows();
      const old = new DatabaseSync(path);
      const before = secretsMigration(MIGRATIONS);
      for (const sql of MIGRATIONS.slice(0, before)) old.exec(sql);
      old.exec(`PRAGMA user_version = ${before}`);
      const insert = old.prepare(`INSERT INTO jobs (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
      for (const values of legacy.values) insert.run(...values);
      old.close();

      const db = openDatabase(path);
      let gone: string[];
      try {
        const box = new JobSecretBox(randomBytes(32));
        const rawRow = async (id: string) =>
          get<Record<string, unknown>>(db, 'SELECT * FROM jobs WHERE id = ?', id);
        gone = await assertMigrated(new SqliteJobStore(db, box), box, rawRow, legacy);
      } finally {
        db.close();
      }
      // Not even in the file's free space: the rows' old text is overwritten, not only unlinked.
      const bytes = await readFile(path);
      for (const secret of gone)
        assert.ok(!bytes.includes(secret), `the database file still holds ${secret}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('PostgreSQL', async () => {
    const url = await database.schemaUrl();
    const legacy = legacyRows();
    const old = new pg.Client({ connectionString: url });
    await old.connect();
    try {
      await old.query(
        'CREATE TABLE presso_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)',
      );
      for (const [index, sql] of PG_MIGRATIONS.slice(0, secretsMigration(PG_MIGRATIONS)).entries()) {
        await old.query(sql);
        await old.query('INSERT INTO presso_migrations VALUES ($1, 0)', [index + 1]);
      }
      for (const values of legacy.values) {
        await old.query(`INSERT INTO jobs (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, values);
      }
    } finally {
      await old.end();
    }
    const pool = await openPostgres(url, { max: 2 });
    try {
      const box = new JobSecretBox(randomBytes(32));
      const rawRow = async (id: string) =>
        (await query<Record<string, unknown>>(pool, 'SELECT * FROM jobs WHERE id = $1', [id]))[0];
      await assertMigrated(new PgJobStore(pool, box), box, rawRow, legacy);
    } finally {
      await pool.end();
    }
  });
});
