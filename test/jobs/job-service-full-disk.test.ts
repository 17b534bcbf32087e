/**
 * JobService when only the queue's database is full (its file on a small tmpfs, the job records on
 * the roomy disk): the job was recorded but cannot be queued. It must be failed with the catalogued
 * 507, not left `enqueued` forever with nothing to run it, and not counted in the account's usage.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isStorageFull } from '../../src/errors/storage-full.ts';
import { LocalFileStore } from '../../src/files/local-file-store.ts';
import { LocalJobEvents } from '../../src/jobs/job-events.ts';
import type { UsageDelta } from '../../src/jobs/job-reporting.ts';
import { JobSecretBox } from '../../src/jobs/job-secrets.ts';
import { JobService } from '../../src/jobs/job-service.ts';
import { type Database, openDatabase } from '../../src/persistence/sqlite/database.ts';
import { SqliteJobQueue } from '../../src/persistence/sqlite/sqlite-job-queue.ts';
import { SqliteJobStore } from '../../src/persistence/sqlite/sqlite-job-store.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { mountSmallFs, type SmallFs } from '../support/small-fs.ts';
import { FetchOutboundClient } from '../webhooks/helpers.ts';

describe('JobService with a full queue database', () => {
  let fs: SmallFs;
  let dir: string;
  const dbs: Database[] = [];
  before(async () => {
    fs = await mountSmallFs(4);
    dir = await mkdtemp(join(tmpdir(), 'presso-job-service-'));
  });
  after(async () => {
    for (const db of dbs) db.close();
    await fs.unmount();
    await rm(dir, { recursive: true, force: true });
  });

  test('a recorded job that cannot be queued is failed with 507 and not counted', async () => {
    const recordsDb = openDatabase(join(dir, 'records.db'));
    const queueDb = openDatabase(join(fs.dir, 'queue.db'));
    dbs.push(recordsDb, queueDb);
    const store = new SqliteJobStore(recordsDb, new JobSecretBox(randomBytes(32)));
    const counted: UsageDelta[] = [];
    const jobs = new JobService(
      {
        store,
        queue: new SqliteJobQueue(queueDb),
        events: new LocalJobEvents(),
        files: new LocalFileStore(join(dir, 'files')),
        outbound: new FetchOutboundClient(),
        // No request here names an external store.
        destinations: {
          check: () => Promise.reject(new Error('no store in this test')),
          deliver: () => Promise.reject(new Error('no store in this test')),
        },
        usage: {
          addUsage: async (_accountId, delta) => {
            counted.push(delta);
          },
          // Counted when jobs finish, which none does here.
          addDailyUsage: () => Promise.reject(new Error('no job finishes in this test')),
        },
        logger: createLogger('silent'),
      },
      { asyncThresholdBytes: 1024, syncTimeoutMs: 1000 },
    );
    const request = {
      url: 'https://example.test/a.png',
      params: {},
      secrets: undefined,
      webhookUrl: undefined,
      forceAsync: true,
    };

    await fs.fill();
    const jobId = randomUUID();
    await assert.rejects(jobs.submitFetch({ jobId, accountId: 'acct', request }), isStorageFull);
    const job = await store.get(jobId);
    assert.equal(job?.status, 'failed');
    assert.equal(job?.error?.code, 'INSUFFICIENT_STORAGE');
    assert.equal(job?.error?.status, 507);
    assert.deepEqual(counted, []);

    await fs.free();
    const accepted = await jobs.submitFetch({ jobId: randomUUID(), accountId: 'acct', request });
    assert.equal(accepted.status, 'enqueued');
    assert.deepEqual(counted, [{ jobs: 1 }]);
  });
});
