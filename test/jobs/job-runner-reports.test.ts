/**
 * A job's reports (usage, webhook) survive the death of the process that finished it. The run that dies
 * between recording the job finished and reporting it leaves the job in the queue; the queue runs it again
 * (a restart, or another worker taking a dead one's job), and that run must report the finished job, once:
 * before this test, it saw a finished job and returned, so the webhook was never sent (seen in CI as a
 * scaled-out job whose webhook never came after its worker was killed).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LocalFileStore } from '../../src/files/local-file-store.ts';
import type { FileDescriptor, JobOutput } from '../../src/jobs/job.ts';
import { LocalJobEvents } from '../../src/jobs/job-events.ts';
import type { DailyUsageDelta, UsageDelta } from '../../src/jobs/job-reporting.ts';
import { JobRunner } from '../../src/jobs/job-runner.ts';
import { JobSecretBox } from '../../src/jobs/job-secrets.ts';
import { type Database, openDatabase } from '../../src/persistence/sqlite/database.ts';
import { SqliteJobStore } from '../../src/persistence/sqlite/sqlite-job-store.ts';
import { SqliteWebhookStore } from '../../src/persistence/sqlite/sqlite-webhook-store.ts';
import { ProcessorRegistry } from '../../src/processors/registry.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { generateWebhookSecret } from '../../src/webhooks/signature.ts';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.ts';
import { FetchOutboundClient, type Receiver, startReceiver, waitFor } from '../webhooks/helpers.ts';

const input: FileDescriptor = {
  name: 'a.png',
  type: 'image',
  format: 'png',
  mime: 'image/png',
  size: 100,
  sha1: 'a'.repeat(40),
};
const output: JobOutput = {
  descriptor: { ...input, size: 40, sha1: 'b'.repeat(40) },
  key: 'jobs/x/output/a.png',
  url: 'https://presso.test/x/a.png',
  expiresAt: Date.now() + 3_600_000,
};

describe('JobRunner reports a finished job whose run died before reporting it', () => {
  let dir: string;
  let db: Database;
  let hook: Receiver;
  let jobs: SqliteJobStore;
  let webhooks: SqliteWebhookStore;
  let dispatcher: WebhookDispatcher;
  let runner: JobRunner;
  const counted: UsageDelta[] = [];
  const countedDaily: (DailyUsageDelta & { kind: string })[] = [];
  const run = (id: string) => runner.run(id, new AbortController().signal);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'presso-runner-reports-'));
    db = openDatabase(join(dir, 'presso.db'));
    hook = await startReceiver();
    const secrets = new JobSecretBox(randomBytes(32));
    jobs = new SqliteJobStore(db, secrets);
    webhooks = new SqliteWebhookStore(db);
    const secret = generateWebhookSecret();
    dispatcher = new WebhookDispatcher({
      store: webhooks,
      client: new FetchOutboundClient(),
      secretFor: async () => secret,
      userAgent: 'Presso test',
      timeoutMs: 2000,
      retrySchedule: [50],
    });
    runner = new JobRunner(
      {
        store: jobs,
        files: new LocalFileStore(join(dir, 'files')),
        events: new LocalJobEvents(),
        processors: new ProcessorRegistry([]),
        outbound: new FetchOutboundClient(),
        logger: createLogger('silent'),
        usage: {
          addUsage: async (_account, delta) => void counted.push(delta),
          addDailyUsage: async (_account, _at, kind, delta) => void countedDaily.push({ kind, ...delta }),
        },
        webhooks: dispatcher,
        secrets,
        destinations: {
          check: () => Promise.reject(new Error('no store in this test')),
          deliver: () => Promise.reject(new Error('no store in this test')),
        },
      },
      {
        workRoot: join(dir, 'work'),
        publicUrl: 'https://presso.test',
        outputTtlMs: 3_600_000,
        maxInputBytes: 1 << 20,
        maxAttempts: 3,
      },
    );
  });

  after(async () => {
    await dispatcher.stop();
    await hook.close();
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A job as a run that died right after finishing it leaves it: finished, nothing reported. */
  const finishedByDeadRun = async (id: string, outcome: 'completed' | 'failed') => {
    await jobs.create({
      id,
      accountId: 'acct-1',
      source: { type: 'upload' },
      params: { image: { compression: 'high' } },
      webhookUrl: hook.url,
      input: { name: 'a.png', size: 100, sha1: 'a'.repeat(40) },
    });
    await jobs.markProcessing(id);
    if (outcome === 'completed') await jobs.complete(id, input, output);
    else await jobs.fail(id, { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415, message: 'not an image' });
  };

  test('the next run sends the webhook and counts the usage, once however often the job runs again', async () => {
    await finishedByDeadRun('job-completed', 'completed');
    await run('job-completed');
    const [delivery, ...others] = await webhooks.listForJob('job-completed');
    assert.equal(others.length, 0);
    assert.equal(JSON.parse(delivery!.payload).status, 'completed');
    assert.deepEqual(counted, [{ bytesOut: 40 }]);
    const daily = { kind: input.type, jobs: 1, failures: 0, bytesIn: input.size, bytesOut: 40 };
    assert.deepEqual(countedDaily, [daily], "the day's counters of its kind");
    assert.ok((await jobs.get('job-completed'))?.reportedAt);

    await run('job-completed');
    assert.equal((await webhooks.listForJob('job-completed')).length, 1);
    assert.deepEqual(counted, [{ bytesOut: 40 }]);
    assert.deepEqual(countedDaily, [daily]);

    await dispatcher.start();
    await waitFor(async () => (await webhooks.get(delivery!.id))?.state === 'succeeded', 'the delivery');
    assert.equal(hook.requests.filter((r) => r.body.includes('job-completed')).length, 1);
  });

  test('a run that died after queuing the webhook, before marking the job reported, does not queue it twice', async () => {
    await finishedByDeadRun('job-failed', 'failed');
    const job = await jobs.get('job-failed');
    await dispatcher.enqueue({
      jobId: job!.id,
      accountId: job!.accountId,
      url: job!.webhookUrl!,
      payload: { id: job!.id, status: job!.status },
      key: job!.id,
    });
    await run('job-failed');
    const deliveries = await webhooks.listForJob('job-failed');
    assert.equal(deliveries.length, 1);
    assert.ok((await jobs.get('job-failed'))?.reportedAt);
  });
});
