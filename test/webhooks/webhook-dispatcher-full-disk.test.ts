/**
 * The webhook dispatcher over a SQLite store on a filesystem that really fills up (a small tmpfs):
 * starting while the database is full used to reject `start()` (the reset of deliveries a crash
 * left 'sending'), which failed the whole process start. Now it starts, and resumes once space is back.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../src/persistence/sqlite/database.ts';
import { SqliteWebhookStore } from '../../src/persistence/sqlite/sqlite-webhook-store.ts';
import { generateWebhookSecret } from '../../src/webhooks/signature.ts';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { mountSmallFs } from '../support/small-fs.ts';
import { FetchOutboundClient, startReceiver, waitFor } from './helpers.ts';

describe('WebhookDispatcher on a full disk', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('starts on a full database and sends a delivery a crash left sending once space is back', async () => {
    const fs = await mountSmallFs(4);
    cleanups.push(() => fs.unmount());
    const hook = await startReceiver();
    cleanups.push(() => hook.close());
    const db = openDatabase(join(fs.dir, 'presso.db'));
    cleanups.push(() => db.close());
    const store = new SqliteWebhookStore(db);
    await store.create({ id: 'crashed', jobId: 'j', accountId: 'acct', url: hook.url, payload: '{}' }, 1);
    await store.claimDue(Date.now(), 10);
    assert.equal((await store.get('crashed'))?.state, 'sending');

    const log = recordingLogger();
    const errors = () => log.lines.filter((line) => line.level === 'error');
    const secret = generateWebhookSecret();
    const dispatcher = new WebhookDispatcher({
      store,
      client: new FetchOutboundClient(),
      secretFor: async () => secret,
      userAgent: 'Presso/1.0 (+https://presso.test)',
      timeoutMs: 2000,
      retrySchedule: [50],
      pollIntervalMs: 20,
      logger: log.logger,
    });
    cleanups.push(() => dispatcher.stop());
    await fs.fill();
    await dispatcher.start();
    await waitFor(() => errors().length >= 2, 'the reset failed at start and again at a poll');
    assert.equal(hook.requests.length, 0);
    assert.equal((await store.get('crashed'))?.state, 'sending');

    await fs.free();
    const sent = await waitFor(async () => {
      const delivery = await store.get('crashed');
      return delivery?.state === 'succeeded' ? delivery : undefined;
    }, 'the delivery to be sent');
    assert.equal(sent.attempts, 1);
    assert.equal(hook.requests.length, 1);
  });
});
