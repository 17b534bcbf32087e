/**
 * The PostgreSQL stores against the same contracts as the embedded SQLite ones (real PostgreSQL, a
 * database of this file's own, a fresh schema per store), and the two schemas kept in step column by column.
 */

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { JobSecretBox } from '../../src/jobs/job-secrets.ts';
import { openPostgres, query, transaction } from '../../src/persistence/postgres/database.ts';
import { PG_MIGRATIONS } from '../../src/persistence/postgres/migrations.ts';
import { PgAccountStore } from '../../src/persistence/postgres/pg-account-store.ts';
import { PgConnectorStore } from '../../src/persistence/postgres/pg-connector-store.ts';
import { PgJobStore } from '../../src/persistence/postgres/pg-job-store.ts';
import { PgSessionStore } from '../../src/persistence/postgres/pg-session-store.ts';
import { PgUserStore } from '../../src/persistence/postgres/pg-user-store.ts';
import { PgWebhookStore } from '../../src/persistence/postgres/pg-webhook-store.ts';
import { openDatabase } from '../../src/persistence/sqlite/database.ts';
import { accountStoreContract } from '../contracts/account-store.contract.ts';
import { connectorStoreContract } from '../contracts/connector-store.contract.ts';
import { jobListContract } from '../contracts/job-list.contract.ts';
import { type JobStoreUnderTest, jobStoreContract } from '../contracts/job-store.contract.ts';
import { sessionStoreContract } from '../contracts/session-store.contract.ts';
import { userStoreContract } from '../contracts/user-store.contract.ts';
import { webhookStoreContract } from '../contracts/webhook-store.contract.ts';
import { testPostgres } from '../support/services.ts';

let database: Awaited<ReturnType<typeof testPostgres>>;
const pools: pg.Pool[] = [];
before(async () => {
  database = await testPostgres();
});
after(async () => {
  for (const pool of pools) await pool.end();
  await database.close();
});

async function freshPool(): Promise<pg.Pool> {
  const pool = await openPostgres(await database.schemaUrl(), { max: 4 });
  pools.push(pool);
  return pool;
}

const postgresJobStore = async (): Promise<JobStoreUnderTest> => {
  const pool = await freshPool();
  let now = 0;
  const secrets = new JobSecretBox(randomBytes(32));
  return {
    store: new PgJobStore(pool, secrets, () => now),
    secrets,
    rawRow: async (id) =>
      (await query<Record<string, unknown>>(pool, 'SELECT * FROM jobs WHERE id = $1', [id]))[0],
    setNow: (ms) => {
      now = ms;
    },
    close: async () => {},
  };
};
jobStoreContract('postgres', postgresJobStore);
jobListContract('postgres', postgresJobStore);

accountStoreContract('postgres', async () => ({
  store: new PgAccountStore(await freshPool()),
  close: async () => {},
}));

// A claim counts as stale after 50 ms here (10 minutes in service): the contract's crash recovery resets one.
webhookStoreContract('postgres', async () => ({
  store: new PgWebhookStore(await freshPool(), { staleSendingMs: 50 }),
  close: async () => {},
}));

test('a webhook claim of a live process is not taken back by another process starting', async () => {
  const store = new PgWebhookStore(await freshPool());
  await store.create({ id: 'live', jobId: 'j', accountId: 'a', url: 'https://x.test/', payload: '{}' }, 0);
  await store.claimDue(0, 1);
  assert.equal(await store.resetSending(60_000), 0); // a minute later: still its sender's
  assert.equal(await store.resetSending(11 * 60_000), 1); // past the stale age: its sender died
});

connectorStoreContract('postgres', async () => {
  const pool = await freshPool();
  const accounts = new PgAccountStore(pool);
  for (const id of ['acc-a', 'acc-b']) {
    await accounts.createAccount(
      { id, name: id, rateLimit: 10, webhookSecret: 'x', createdAt: 0 },
      {
        key: {
          id: `key-${id}`,
          accountId: id,
          name: id,
          prefix: id,
          scopes: ['jobs', 'connectors'],
          createdAt: 0,
          revokedAt: undefined,
          lastUsedAt: undefined,
        },
        hash: `hash-${id}`,
      },
    );
  }
  return { store: new PgConnectorStore(pool), accounts: ['acc-a', 'acc-b'] };
});

/** Two accounts (and, with `users`, one user in each) in a fresh schema, for the stores whose rows reference them. */
async function poolWithAccounts(users: boolean): Promise<pg.Pool> {
  const pool = await freshPool();
  const accounts = new PgAccountStore(pool);
  const userStore = new PgUserStore(pool);
  for (const id of ['acc-a', 'acc-b']) {
    await accounts.createAccount(
      { id, name: id, rateLimit: 10, webhookSecret: 'x', createdAt: 0 },
      {
        key: {
          id: `key-${id}`,
          accountId: id,
          name: id,
          prefix: id,
          scopes: ['jobs', 'connectors'],
          createdAt: 0,
          revokedAt: undefined,
          lastUsedAt: undefined,
        },
        hash: `hash-${id}`,
      },
    );
    if (users)
      await userStore.createUser({
        id: `usr-${id}`,
        accountId: id,
        email: `${id}@example.com`,
        role: 'owner',
        passwordHash: 'x',
        createdAt: 0,
        lastSignInAt: undefined,
      });
  }
  return pool;
}

userStoreContract('postgres', async () => ({
  store: new PgUserStore(await poolWithAccounts(false)),
  accounts: ['acc-a', 'acc-b'],
}));

sessionStoreContract('postgres', async () => ({
  store: new PgSessionStore(await poolWithAccounts(true)),
  users: ['usr-acc-a', 'usr-acc-b'],
}));

test('the PostgreSQL schema has the SQLite schema’s tables and columns (the queue is BullMQ’s in scaled mode)', async () => {
  const sqlite = openDatabase(':memory:');
  const sqliteColumns = new Map<string, string[]>();
  const tables = sqlite
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
    .all();
  for (const { name } of tables as { name: string }[]) {
    if (name === 'queue' || name === 'queue_turns') continue;
    const columns = sqlite.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[];
    sqliteColumns.set(name, columns.map((c) => c.name).sort());
  }
  sqlite.close();
  const pool = await freshPool();
  const rows = await query<{ table_name: string; column_name: string }>(
    pool,
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name <> 'presso_migrations'`,
  );
  const pgColumns = new Map<string, string[]>();
  for (const row of rows)
    pgColumns.set(row.table_name, [...(pgColumns.get(row.table_name) ?? []), row.column_name]);
  for (const [table, columns] of pgColumns) pgColumns.set(table, columns.sort());
  assert.deepEqual(Object.fromEntries([...pgColumns].sort()), Object.fromEntries([...sqliteColumns].sort()));
});

test('processes starting together migrate once (advisory lock)', async () => {
  const url = await database.schemaUrl();
  const opened = await Promise.all([
    openPostgres(url, { max: 2 }),
    openPostgres(url, { max: 2 }),
    openPostgres(url, { max: 2 }),
  ]);
  pools.push(...opened);
  const versions = await query<{ version: number }>(
    opened[0]!,
    'SELECT version FROM presso_migrations ORDER BY version',
  );
  assert.deepEqual(
    versions.map((v) => v.version),
    PG_MIGRATIONS.map((_, i) => i + 1),
  );
});

test('a connection lost inside a transaction rejects it, and the pool goes on with a new one', async () => {
  const pool = await freshPool();
  const running = transaction(pool, async (client) => {
    const [mine] = await query<{ pid: number }>(client, 'SELECT pg_backend_pid() AS pid');
    // Ended from another connection while it sleeps (a failover, an idle-in-transaction time-out).
    const killer = query(pool, 'SELECT pg_terminate_backend($1)', [mine?.pid]);
    await client.query('SELECT pg_sleep(60)');
    await killer;
  });
  // An 'error' event nobody listened for would end this test process instead.
  await assert.rejects(running);
  const [after] = await query<{ one: number }>(pool, 'SELECT 1 AS one');
  assert.equal(after?.one, 1);
});
