import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { openDatabase } from '../../src/persistence/sqlite/database.ts';
import { SqliteWebhookStore } from '../../src/persistence/sqlite/sqlite-webhook-store.ts';
import { webhookStoreContract } from '../contracts/webhook-store.contract.ts';

webhookStoreContract('SqliteWebhookStore', async () => {
  const db = openDatabase(':memory:');
  return { store: new SqliteWebhookStore(db), close: async () => db.close() };
});

it('SqliteWebhookStore keeps deliveries and attempts in the database file across reopen', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'presso-webhook-db-'));
  try {
    const path = join(dir, 'presso.db');
    const first = openDatabase(path);
    const store = new SqliteWebhookStore(first);
    await store.create({ id: 'd1', jobId: 'j1', accountId: 'a1', url: 'https://x.test/', payload: '{}' }, 1);
    await store.claimDue(1, 1);
    await store.recordAttempt('d1', { at: 2, statusCode: 503, error: undefined, durationMs: 4 });
    await store.reschedule('d1', 50, 3);
    first.close();

    const second = openDatabase(path);
    const [delivery] = await new SqliteWebhookStore(second).listForJob('j1');
    second.close();
    assert.equal(delivery?.state, 'pending');
    assert.equal(delivery?.nextAttemptAt, 50);
    assert.equal(delivery?.attemptLog.length, 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
