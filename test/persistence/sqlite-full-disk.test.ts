/**
 * The SQLite queue on a filesystem that really fills up (a small tmpfs): "database or disk is full"
 * in its bookkeeping is logged and retried, never thrown where nobody catches it (that ended the
 * process), and the jobs it held run once space is back.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isStorageFull } from '../../src/errors/storage-full.ts';
import { type Database, openDatabase } from '../../src/persistence/sqlite/database.ts';
import { SqliteJobQueue } from '../../src/persistence/sqlite/sqlite-job-queue.ts';
import { SqliteWebhookStore } from '../../src/persistence/sqlite/sqlite-webhook-store.ts';
import { type RecordingLogger, recordingLogger } from '../support/recording-logger.ts';
import { mountSmallFs, type SmallFs } from '../support/small-fs.ts';
import { until } from '../support/until.ts';

describe('SQLite queue and webhook store on a full disk', () => {
  let fs: SmallFs;
  const dbs: Database[] = [];
  const queues: SqliteJobQueue[] = [];

  before(async () => {
    fs = await mountSmallFs(4);
  });
  after(async () => {
    for (const queue of queues) await queue.stop(100);
    for (const db of dbs) db.close();
    await fs.unmount();
  });

  const openQueue = (file: string, { logger }: RecordingLogger) => {
    const db = openDatabase(join(fs.dir, file));
    dbs.push(db);
    const queue = new SqliteJobQueue(db, { pollMs: 20, retryDelayMs: 0, logger });
    queues.push(queue);
    return queue;
  };

  test('a full database fails enqueue and the delete of a finished job without ending the process; the jobs run once space is back', async () => {
    const logger = recordingLogger();
    const queue = openQueue('running.db', logger);
    const ran: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await queue.enqueue('a');
    await queue.enqueue('b');
    queue.start(async (id) => {
      ran.push(id);
      if (id === 'a') await gate;
    }, 1);
    await until(() => ran.length === 1, 'job a started');

    await fs.fill();
    await assert.rejects(queue.enqueue('c'), (error: unknown) => isStorageFull(error));
    // a ends while the disk is full: its row cannot be deleted, and b cannot be claimed.
    release();
    await until(
      () => logger.messages().includes('queue could not record a job outcome; retrying'),
      'the failed delete was logged',
    );
    await until(
      () => logger.messages().includes('queue bookkeeping failed; retrying'),
      'the retry at the next pump failed and was logged',
    );
    assert.deepEqual(ran, ['a']);
    assert.equal(await queue.size(), 2, 'a (not yet deleted) and b are both kept');

    await fs.free();
    await until(() => ran.length === 2, 'job b ran after space came back');
    assert.deepEqual(ran, ['a', 'b']);
    await until(async () => (await queue.size()) === 0, 'both rows deleted');
    assert.ok(logger.messages().includes('queue bookkeeping recovered'));
    assert.equal(logger.messages().filter((m) => m === 'queue bookkeeping failed; retrying').length, 1);
  });

  test('a queue starts on a full database, and takes back a dead process’s work once space is back', async () => {
    const logger = recordingLogger();
    const queue = openQueue('restart.db', logger);
    await queue.enqueue('left-by-a-crash');
    // What a killed process leaves: the row claimed, never finished.
    dbs.at(-1)!.prepare(`UPDATE queue SET state = 'active'`).run();
    await fs.fill();
    const ran: string[] = [];
    queue.start(async (id) => {
      ran.push(id);
    }, 1);
    await until(() => logger.messages().includes('queue bookkeeping failed; retrying'), 'the reset failed');
    assert.deepEqual(ran, []);
    await fs.free();
    await until(() => ran.length === 1, 'the crashed job ran');
    assert.deepEqual(ran, ['left-by-a-crash']);
  });

  test('a job that falls due while the database is full is not claimed until its claim is recorded', async (t) => {
    // Date is mocked so the job falls due exactly when the test says, after the disk is full.
    t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
    const logger = recordingLogger();
    const queue = openQueue('claim.db', logger);
    const ran: string[] = [];
    queue.start(async (id) => {
      ran.push(id);
    }, 1);
    // Written as enqueue() writes it (the row and its account's place in the turns), but due later.
    dbs.at(-1)!.exec(
      `INSERT INTO queue (job_id, state, available_at) VALUES ('later', 'waiting', 1001000);
         INSERT OR IGNORE INTO queue_turns (lane, account) VALUES ('standard', '');`,
    );
    await fs.fill();
    t.mock.timers.tick(2000);
    await until(() => logger.messages().includes('queue bookkeeping failed; retrying'), 'the claim failed');
    assert.deepEqual(ran, [], 'a claim that could not be written must not run the job');
    await fs.free();
    await until(async () => (await queue.size()) === 0, 'the job ran and its row was deleted');
    assert.deepEqual(ran, ['later'], 'run exactly once');
  });

  test('stop() records an outcome the full disk held back, so the next start does not run the job again', async () => {
    const logger = recordingLogger();
    const db = openDatabase(join(fs.dir, 'stop.db'));
    dbs.push(db);
    // No poll during the test: only stop() can retry the write once space is back.
    const queue = new SqliteJobQueue(db, { pollMs: 3_600_000, retryDelayMs: 0, logger: logger.logger });
    queues.push(queue);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await queue.enqueue('finished-while-full');
    queue.start(() => gate, 1);
    await until(() => db.prepare(`SELECT state FROM queue`).get()?.state === 'active', 'the job runs');
    await fs.fill();
    release();
    await until(
      () => logger.messages().includes('queue could not record a job outcome; retrying'),
      'the delete failed',
    );
    await fs.free();
    assert.equal(await queue.size(), 1, 'still held: nothing retried the write yet');
    await queue.stop(100);
    assert.equal(await queue.size(), 0, 'the finished job is not left for the next start');
  });

  test('a webhook delivery written to a full database fails instead of being reported stored', async () => {
    const db = openDatabase(join(fs.dir, 'webhooks.db'));
    dbs.push(db);
    const store = new SqliteWebhookStore(db);
    const delivery = { jobId: 'j', accountId: 'a', url: 'https://h.test/', payload: '{}' };
    await store.create({ id: 'before', ...delivery }, 1);
    await store.markSucceeded('before', 2);
    await fs.fill();
    try {
      await assert.rejects(store.create({ id: 'while-full', ...delivery }, 3), isStorageFull);
      await assert.rejects(store.replay('before', 4), isStorageFull);
    } finally {
      await fs.free();
    }
    assert.equal(await store.get('while-full'), undefined);
    assert.equal((await store.get('before'))?.state, 'succeeded');
  });
});
