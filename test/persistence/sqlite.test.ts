/** The embedded SQLite implementations against the shared contracts. */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobSecretBox } from '../../src/jobs/job-secrets.ts';
import { get, openDatabase } from '../../src/persistence/sqlite/database.ts';
import { SqliteAccountStore } from '../../src/persistence/sqlite/sqlite-account-store.ts';
import { SqliteConnectorStore } from '../../src/persistence/sqlite/sqlite-connector-store.ts';
import { SqliteJobQueue } from '../../src/persistence/sqlite/sqlite-job-queue.ts';
import { SqliteJobStore } from '../../src/persistence/sqlite/sqlite-job-store.ts';
import { SqliteSessionStore } from '../../src/persistence/sqlite/sqlite-session-store.ts';
import { SqliteUserStore } from '../../src/persistence/sqlite/sqlite-user-store.ts';
import { accountStoreContract } from '../contracts/account-store.contract.ts';
import { connectorStoreContract } from '../contracts/connector-store.contract.ts';
import { jobListContract } from '../contracts/job-list.contract.ts';
import { type JobQueueUnderTest, jobQueueContract } from '../contracts/job-queue.contract.ts';
import { jobQueueFairnessContract } from '../contracts/job-queue-fairness.contract.ts';
import { type JobStoreUnderTest, jobStoreContract } from '../contracts/job-store.contract.ts';
import { sessionStoreContract } from '../contracts/session-store.contract.ts';
import { userStoreContract } from '../contracts/user-store.contract.ts';

const sqliteJobStore = async (): Promise<JobStoreUnderTest> => {
  const db = openDatabase(':memory:');
  let now = 0;
  const secrets = new JobSecretBox(randomBytes(32));
  return {
    store: new SqliteJobStore(db, secrets, () => now),
    secrets,
    rawRow: async (id) => get<Record<string, unknown>>(db, 'SELECT * FROM jobs WHERE id = ?', id),
    setNow: (ms) => {
      now = ms;
    },
    close: async () => db.close(),
  };
};
jobStoreContract('sqlite', sqliteJobStore);
jobListContract('sqlite', sqliteJobStore);

async function sqliteQueues(): Promise<JobQueueUnderTest> {
  const dir = await mkdtemp(join(tmpdir(), 'presso-queue-'));
  const dbs: ReturnType<typeof openDatabase>[] = [];
  return {
    // Each queue gets its own connection to one database file, as a restarted process would.
    async open() {
      const db = openDatabase(join(dir, 'queue.db'));
      dbs.push(db);
      return new SqliteJobQueue(db, { pollMs: 20, retryDelayMs: 600_000 });
    },
    async close() {
      for (const db of dbs) db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

jobQueueContract('sqlite', sqliteQueues);
jobQueueFairnessContract('sqlite', sqliteQueues);

accountStoreContract('sqlite', async () => {
  const db = openDatabase(':memory:');
  return { store: new SqliteAccountStore(db), close: async () => db.close() };
});

connectorStoreContract('sqlite', async () => {
  const db = openDatabase(':memory:');
  const accounts = new SqliteAccountStore(db);
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
  return { store: new SqliteConnectorStore(db), accounts: ['acc-a', 'acc-b'] };
});

/** Two accounts (and, with `users`, one user in each) in a fresh database, for the stores whose rows reference them. */
async function sqliteWithAccounts(users: boolean) {
  const db = openDatabase(':memory:');
  const accounts = new SqliteAccountStore(db);
  const userStore = new SqliteUserStore(db);
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
  return db;
}

userStoreContract('sqlite', async () => ({
  store: new SqliteUserStore(await sqliteWithAccounts(false)),
  accounts: ['acc-a', 'acc-b'],
}));

sessionStoreContract('sqlite', async () => ({
  store: new SqliteSessionStore(await sqliteWithAccounts(true)),
  users: ['usr-acc-a', 'usr-acc-b'],
}));
