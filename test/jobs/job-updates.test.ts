/**
 * A job's update stream (the SSE route's source) over a real SQLite job store, with each JobEvents backend:
 * in-process (embedded) and Redis pub/sub (scaled, real Redis, a second connection publishing as a worker
 * would). The stream gives the state now, each status and progress change, a quiet tick when nothing
 * happens, ends with the job, and leaves no watch open however it ends.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import type { JobEvents } from '../../src/jobs/job-events.ts';
import { LocalJobEvents } from '../../src/jobs/job-events.ts';
import { JobSecretBox } from '../../src/jobs/job-secrets.ts';
import { type JobUpdate, jobUpdates } from '../../src/jobs/job-updates.ts';
import { RedisJobEvents } from '../../src/jobs/redis-job-events.ts';
import { openDatabase } from '../../src/persistence/sqlite/database.ts';
import { SqliteJobStore } from '../../src/persistence/sqlite/sqlite-job-store.ts';
import { REDIS_URL, testRedis } from '../support/services.ts';

/** Long: a stream waits this long for a change before its quiet tick, so a tick here means a change was lost. */
const NO_TICK_MS = 60_000;

interface Backend {
  /** Where the API process watches. */
  watcher: JobEvents;
  /** Where the worker publishes (another process's connection in the scaled mode). */
  publisher: JobEvents;
  close(): Promise<void>;
}

function updatesContract(name: string, open: () => Promise<Backend>) {
  describe(`job updates: ${name}`, () => {
    let backend: Backend;
    const db = openDatabase(':memory:');
    const store = new SqliteJobStore(db, new JobSecretBox(randomBytes(32)));
    before(async () => {
      backend = await open();
    });
    after(async () => {
      await backend.close();
      db.close();
    });

    const newJob = async () =>
      store.create({
        id: randomUUID(),
        accountId: 'acct',
        source: { type: 'upload' },
        params: {},
        webhookUrl: undefined,
        input: { name: 'a.mp4', size: 10, sha1: 'a'.repeat(40) },
      });
    const summary = (u: JobUpdate) =>
      u.type === 'status'
        ? `status ${u.job.status}`
        : u.type === 'progress'
          ? `progress ${u.progress}`
          : 'quiet';

    it('streams the state now, each change of status and progress, and ends with the job', async () => {
      const { id } = await newJob();
      const stop = new AbortController();
      const stream = jobUpdates({ store, events: backend.watcher }, id, {
        signal: stop.signal,
        quietMs: NO_TICK_MS,
      });
      const next = async () => summary((await stream.next()).value as JobUpdate);
      assert.equal(await next(), 'status enqueued');
      assert.equal(backend.watcher.openWatches(), 1);
      await store.markProcessing(id);
      await backend.publisher.publishChanged(id);
      assert.equal(await next(), 'status processing');
      await store.setProgress(id, 40);
      await backend.publisher.publishChanged(id);
      assert.equal(await next(), 'progress 40');
      await store.fail(id, { code: 'X', status: 422, message: 'bad' });
      await backend.publisher.publishChanged(id);
      assert.equal(await next(), 'status failed');
      assert.equal((await stream.next()).done, true);
      assert.equal(backend.watcher.openWatches(), 0);
    });

    it('ticks when nothing changes, and reads the job again on the tick', async () => {
      const { id } = await newJob();
      const stream = jobUpdates({ store, events: backend.watcher }, id, {
        signal: new AbortController().signal,
        quietMs: 20,
      });
      assert.equal(summary((await stream.next()).value as JobUpdate), 'status enqueued');
      // Changed without a notice (a lost message): the tick's read finds it.
      await store.markProcessing(id);
      const seen: string[] = [];
      for await (const update of stream) {
        seen.push(summary(update));
        if (update.type === 'status') break;
      }
      assert.deepEqual(seen, ['quiet', 'status processing']);
      assert.equal(backend.watcher.openWatches(), 0, 'a stream left by its reader closes its watch');
    });

    it('a stopped stream (the client went away) ends at once and releases its watch', async () => {
      const { id } = await newJob();
      const stop = new AbortController();
      const stream = jobUpdates({ store, events: backend.watcher }, id, {
        signal: stop.signal,
        quietMs: NO_TICK_MS,
      });
      await stream.next();
      const waiting = stream.next();
      assert.equal(backend.watcher.openWatches(), 1);
      stop.abort();
      assert.equal((await waiting).done, true);
      assert.equal(backend.watcher.openWatches(), 0);
    });

    it('a finished job gives its final status and ends; an unknown one ends at once', async () => {
      const { id } = await newJob();
      await store.fail(id, { code: 'X', status: 422, message: 'bad' });
      const seen: string[] = [];
      const options = { signal: new AbortController().signal, quietMs: NO_TICK_MS };
      for await (const update of jobUpdates({ store, events: backend.watcher }, id, options))
        seen.push(summary(update));
      assert.deepEqual(seen, ['status failed']);
      for await (const update of jobUpdates({ store, events: backend.watcher }, randomUUID(), options))
        assert.fail(`an unknown job gave ${summary(update)}`);
      assert.equal(backend.watcher.openWatches(), 0);
    });
  });
}

updatesContract('in-process events (embedded)', async () => {
  const events = new LocalJobEvents();
  return { watcher: events, publisher: events, close: () => events.close() };
});

updatesContract('Redis events (scaled)', async () => {
  const shared = await testRedis();
  const watcher = new RedisJobEvents(shared.redis, new Redis(REDIS_URL), shared.prefix);
  const workerConnection = new Redis(REDIS_URL);
  const publisher = new RedisJobEvents(workerConnection, new Redis(REDIS_URL), shared.prefix);
  return {
    watcher,
    publisher,
    async close() {
      await watcher.close();
      await publisher.close();
      workerConnection.disconnect();
      await shared.close();
    },
  };
});
