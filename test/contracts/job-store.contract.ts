/** Behaviour every JobStore must have (SQLite now, PostgreSQL for the scaled-out mode). */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { FileDescriptor, JobOutput } from '../../src/jobs/job.ts';
import type { JobSecretBox, RequestSecrets } from '../../src/jobs/job-secrets.ts';
import type { JobStore, NewJob } from '../../src/jobs/job-store.ts';

export interface JobStoreUnderTest {
  store: JobStore;
  /** The box the store seals secrets with (the runner opens them with the same). */
  secrets: JobSecretBox;
  /** The job's row as the database holds it, every column, read with plain SQL. */
  rawRow(id: string): Promise<Record<string, unknown> | undefined>;
  /** Sets the store's clock (milliseconds). */
  setNow(ms: number): void;
  close(): Promise<void>;
}

export const input: FileDescriptor = {
  name: 'a.jpg',
  type: 'image',
  format: 'jpeg',
  mime: 'image/jpeg',
  size: 10,
  sha1: 'a'.repeat(40),
};

export function newJob(overrides: Partial<NewJob> = {}): NewJob {
  return {
    id: randomUUID(),
    accountId: 'acct-1',
    source: { type: 'upload' },
    params: { image: { compression: 'high' } },
    webhookUrl: undefined,
    input: { name: 'a.jpg', size: 10, sha1: 'a'.repeat(40) },
    ...overrides,
  };
}

export function output(expiresAt: number): JobOutput {
  return {
    descriptor: { ...input, name: 'a.jpeg', size: 5, sha1: 'b'.repeat(40) },
    key: 'jobs/x/output/a.jpeg',
    url: 'https://example.test/1/x/a.jpeg',
    expiresAt,
    metadata: { width: 1 },
  };
}

/** A request's secrets, each value unique so that any copy of it in a row can be found. */
function callerSecrets(): { secrets: RequestSecrets; plain: string[] } {
  const plain = ['Bearer', 'sid=', 'zip-', 'pdf-'].map((prefix) => `${prefix}${randomUUID()}`);
  return {
    secrets: {
      headers: { Authorization: plain[0], Cookie: plain[1] },
      archive: { password: plain[2] },
      pdf: { password: plain[3] },
    },
    plain,
  };
}

export function jobStoreContract(name: string, factory: () => Promise<JobStoreUnderTest>): void {
  describe(`JobStore contract: ${name}`, () => {
    let subject: JobStoreUnderTest;
    beforeEach(async () => {
      subject = await factory();
      subject.setNow(1_000_000);
    });
    afterEach(() => subject.close());

    it('creates an enqueued job and reads it back whole', async () => {
      const spec = newJob({
        source: { type: 'fetch', url: 'https://x.test/a', headers: { a: 'b' } },
        webhookUrl: 'https://h.test',
      });
      const job = await subject.store.create(spec);
      assert.equal(job.status, 'enqueued');
      assert.equal(job.attempts, 0);
      assert.deepEqual(await subject.store.get(spec.id), job);
      assert.deepEqual(job.source, spec.source);
      assert.deepEqual(job.params, spec.params);
      assert.equal(job.webhookUrl, 'https://h.test');
      assert.equal(job.createdAt, 1_000_000);
    });

    it('returns undefined for an unknown id', async () => {
      assert.equal(await subject.store.get(randomUUID()), undefined);
    });

    it('counts attempts when a job starts processing, and never restarts a finished job', async () => {
      const { id } = await subject.store.create(newJob());
      assert.equal((await subject.store.markProcessing(id))?.attempts, 1);
      const again = await subject.store.markProcessing(id);
      assert.equal(again?.status, 'processing');
      assert.equal(again?.attempts, 2);
      await subject.store.fail(id, { code: 'X', status: 422, message: 'bad' });
      const after = await subject.store.markProcessing(id);
      assert.equal(after?.status, 'failed');
      assert.equal(after?.attempts, 2);
    });

    it('releases an attempt: back to enqueued, uncounted; never for a finished job', async () => {
      const { id } = await subject.store.create(newJob());
      await subject.store.markProcessing(id);
      await subject.store.markProcessing(id);
      await subject.store.releaseAttempt(id);
      const released = await subject.store.get(id);
      assert.equal(released?.status, 'enqueued');
      assert.equal(released?.attempts, 1);
      assert.equal((await subject.store.markProcessing(id))?.attempts, 2);
      await subject.store.fail(id, { code: 'X', status: 422, message: 'bad' });
      await subject.store.releaseAttempt(id);
      const failed = await subject.store.get(id);
      assert.equal(failed?.status, 'failed');
      assert.equal(failed?.attempts, 2);
    });

    it('records progress only while processing, and starts a new run without it', async () => {
      const { id } = await subject.store.create(newJob());
      await subject.store.setProgress(id, 30);
      assert.equal((await subject.store.get(id))?.progress, undefined, 'not processing yet');
      await subject.store.markProcessing(id);
      await subject.store.setProgress(id, 42.4);
      assert.equal((await subject.store.get(id))?.progress, 42);
      assert.equal((await subject.store.markProcessing(id))?.progress, undefined, 'a re-run starts afresh');
      await subject.store.setProgress(id, 60);
      await subject.store.fail(id, { code: 'X', status: 422, message: 'bad' });
      await subject.store.setProgress(id, 90);
      assert.equal((await subject.store.get(id))?.progress, 60, 'a finished job keeps its last value');
    });

    it('records completion with input, output and finish time', async () => {
      const { id } = await subject.store.create(newJob());
      subject.setNow(2_000_000);
      const done = await subject.store.complete(id, input, output(9_000_000));
      assert.equal(done.status, 'completed');
      assert.deepEqual(done.input, input);
      assert.deepEqual(done.output, output(9_000_000));
      assert.equal(done.finishedAt, 2_000_000);
      assert.equal(done.error, undefined);
    });

    it('records failure with the catalogued error', async () => {
      const { id } = await subject.store.create(newJob());
      const errors = [{ field: 'image.resize', message: 'needs width' }];
      const failed = await subject.store.fail(id, {
        code: 'VALIDATION_FAILED',
        status: 422,
        message: 'invalid',
        errors,
      });
      assert.equal(failed.status, 'failed');
      assert.deepEqual(failed.error, { code: 'VALIDATION_FAILED', status: 422, message: 'invalid', errors });
    });

    it('finishes a job unreported, and records its report once', async () => {
      const { id } = await subject.store.create(newJob());
      const done = await subject.store.complete(id, input, output(9_000_000));
      assert.equal(done.reportedAt, undefined, 'finished, not yet reported');
      subject.setNow(3_000_000);
      await subject.store.markReported(id);
      assert.equal((await subject.store.get(id))?.reportedAt, 3_000_000);
      subject.setNow(4_000_000);
      await subject.store.markReported(id);
      assert.equal((await subject.store.get(id))?.reportedAt, 3_000_000, 'the first report stands');
      const failed = await subject.store.create(newJob());
      assert.equal(
        (await subject.store.fail(failed.id, { code: 'X', status: 500, message: 'x' })).reportedAt,
        undefined,
      );
    });

    it('updates the input of a fetched job', async () => {
      const { id } = await subject.store.create(newJob({ input: undefined }));
      await subject.store.setInput(id, { name: 'b.png', size: 99, sha1: 'c'.repeat(40) });
      assert.deepEqual((await subject.store.get(id))?.input, {
        name: 'b.png',
        size: 99,
        sha1: 'c'.repeat(40),
      });
    });

    it('lists expired outputs until they are cleared', async () => {
      const a = await subject.store.create(newJob());
      const b = await subject.store.create(newJob());
      await subject.store.complete(a.id, input, output(5_000));
      await subject.store.complete(b.id, input, output(50_000));
      assert.deepEqual(
        (await subject.store.listOutputsExpiredBefore(10_000, 10)).map((j) => j.id),
        [a.id],
      );
      await subject.store.clearOutput(a.id);
      assert.deepEqual(await subject.store.listOutputsExpiredBefore(10_000, 10), []);
      assert.equal((await subject.store.listOutputsExpiredBefore(60_000, 10)).length, 1);
      assert.equal(
        (await subject.store.get(a.id))?.status,
        'completed',
        'the record stays after its output expires',
      );
    });

    it('deletes finished records older than the retention, never running ones', async () => {
      const old = await subject.store.create(newJob());
      const running = await subject.store.create(newJob());
      await subject.store.fail(old.id, { code: 'X', status: 500, message: 'x' });
      await subject.store.markProcessing(running.id);
      subject.setNow(9_000_000);
      const recent = await subject.store.create(newJob());
      await subject.store.fail(recent.id, { code: 'X', status: 500, message: 'x' });
      assert.equal(await subject.store.deleteFinishedBefore(5_000_000), 1);
      assert.equal(await subject.store.get(old.id), undefined);
      assert.ok(await subject.store.get(running.id));
      assert.ok(await subject.store.get(recent.id));
    });

    it('keeps the secrets of a job sealed: no row holds them in plain text, and they open for that job alone', async () => {
      const { secrets, plain } = callerSecrets();
      const job = await subject.store.create(
        newJob({ source: { type: 'fetch', url: 'https://x.test/a' }, params: { archive: {} }, secrets }),
      );
      const row = JSON.stringify(await subject.rawRow(job.id));
      for (const value of plain) assert.ok(!row.includes(value), `the row holds ${value} in plain text`);
      assert.deepEqual(job.params, { archive: {} }, 'the parameters hold no secret');
      assert.deepEqual(job.source, { type: 'fetch', url: 'https://x.test/a' });
      assert.ok(job.sealedSecrets);
      assert.deepEqual(subject.secrets.open(job.id, job.sealedSecrets), secrets);
      assert.throws(() => subject.secrets.open(randomUUID(), job.sealedSecrets!), 'sealed for this job only');
      const plainJob = await subject.store.create(newJob());
      assert.equal(plainJob.sealedSecrets, undefined, 'a request without secrets seals nothing');
    });

    it('wipes the secrets of a job when it ends, completed or failed', async () => {
      const completed = callerSecrets();
      const failed = callerSecrets();
      const a = await subject.store.create(newJob({ secrets: completed.secrets }));
      const b = await subject.store.create(newJob({ secrets: failed.secrets }));
      await subject.store.markProcessing(a.id);
      await subject.store.markProcessing(b.id);
      assert.ok((await subject.store.get(a.id))?.sealedSecrets, 'kept while the job runs');
      await subject.store.complete(a.id, input, output(9_000_000));
      await subject.store.fail(b.id, { code: 'X', status: 422, message: 'bad' });
      for (const [job, { plain }] of [
        [a, completed],
        [b, failed],
      ] as const) {
        assert.equal((await subject.store.get(job.id))?.sealedSecrets, undefined);
        const row = await subject.rawRow(job.id);
        assert.equal(row?.secrets, null);
        const text = JSON.stringify(row);
        assert.ok(!text.includes(job.sealedSecrets!), 'nothing of the sealed secrets is left');
        for (const value of plain) assert.ok(!text.includes(value));
      }
    });

    it('notes when each run starts, and keeps the steps of the run that ended the job', async () => {
      const { id } = await subject.store.create(newJob());
      assert.equal((await subject.store.get(id))?.startedAt, undefined);
      subject.setNow(1_500_000);
      assert.equal((await subject.store.markProcessing(id))?.startedAt, 1_500_000);
      subject.setNow(1_600_000);
      assert.equal((await subject.store.markProcessing(id))?.startedAt, 1_600_000, 'a re-run starts again');
      const steps = [
        { name: 'acquire-input', startedAt: 1_600_000, finishedAt: 1_600_010, outcome: 'completed' as const },
        { name: 'process', startedAt: 1_600_010, finishedAt: 1_600_500, outcome: 'completed' as const },
      ];
      const done = await subject.store.complete(id, input, output(9_000_000), steps);
      assert.deepEqual(done.steps, steps);
      assert.deepEqual((await subject.store.get(id))?.steps, steps);
      const failedSteps = [{ name: 'detect-kind', startedAt: 1, finishedAt: 2, outcome: 'failed' as const }];
      const other = await subject.store.create(newJob());
      const failed = await subject.store.fail(
        other.id,
        { code: 'X', status: 415, message: 'x' },
        failedSteps,
      );
      assert.deepEqual(failed.steps, failedSteps);
      const bare = await subject.store.create(newJob());
      assert.equal(
        (await subject.store.fail(bare.id, { code: 'X', status: 500, message: 'x' })).steps,
        undefined,
      );
    });
  });
}
