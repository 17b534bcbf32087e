/**
 * The job list every JobStore must give (JobStore.list, the dashboard's jobs page): only the account's jobs,
 * newest first, keyset pages, and filters by status, kind, time, size and a plain substring; and the operator's
 * list of every account's running jobs with the worker that claimed each.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { JobStore } from '../../src/jobs/job-store.ts';
import { input, type JobStoreUnderTest, newJob, output } from './job-store.contract.ts';

export function jobListContract(name: string, factory: () => Promise<JobStoreUnderTest>): void {
  describe(`JobStore contract, the job list: ${name}`, () => {
    let subject: JobStoreUnderTest;
    beforeEach(async () => {
      subject = await factory();
      subject.setNow(1_000_000);
    });
    afterEach(() => subject.close());

    /** Jobs of acct-1 created one second apart (the last is the newest), and one of another account. */
    async function seed() {
      const made: { id: string; name: string; size: number }[] = [];
      const specs = [
        { name: 'holiday.jpg', size: 1_000, kind: 'image' },
        { name: 'report_2026.pdf', size: 50_000, kind: 'pdf' },
        { name: 'clip.mp4', size: 9_000_000, kind: 'video' },
        { name: '100%_done.png', size: 2_000, kind: 'image' },
        { name: 'notes.txt', size: 10, kind: undefined },
      ];
      for (const [index, spec] of specs.entries()) {
        subject.setNow(2_000_000 + index * 1_000);
        const job = await subject.store.create(
          newJob({ kind: spec.kind, input: { name: spec.name, size: spec.size, sha1: 'a'.repeat(40) } }),
        );
        made.push({ id: job.id, name: spec.name, size: spec.size });
      }
      await subject.store.create(newJob({ accountId: 'acct-2', kind: 'image' }));
      return made;
    }
    const names = (page: { jobs: { input?: { name: string } | undefined }[] }) =>
      page.jobs.map((j) => j.input?.name);
    const list = (filter: Parameters<JobStore['list']>[1], limit = 10) =>
      subject.store.list('acct-1', filter, { limit });

    it("lists only the account's jobs, newest first", async () => {
      await seed();
      const page = await list({});
      assert.deepEqual(names(page), [
        'notes.txt',
        '100%_done.png',
        'clip.mp4',
        'report_2026.pdf',
        'holiday.jpg',
      ]);
      assert.equal(page.next, undefined);
      assert.deepEqual((await subject.store.list('acct-3', {}, { limit: 10 })).jobs, []);
    });

    it('pages with a keyset: each job once, in order, the last page without a next position', async () => {
      await seed();
      // Two more in the same millisecond as the newest: ties are broken by id.
      await subject.store.create(newJob());
      await subject.store.create(newJob());
      const seen: string[] = [];
      let after: Awaited<ReturnType<JobStore['list']>>['next'];
      let pages = 0;
      do {
        const page = await subject.store.list('acct-1', {}, { limit: 2, after });
        seen.push(...page.jobs.map((j) => j.id));
        after = page.next;
        pages += 1;
      } while (after !== undefined);
      assert.equal(pages, 4);
      assert.equal(new Set(seen).size, 7);
      const all = (await list({}, 100)).jobs.map((j) => j.id);
      assert.deepEqual(seen, all);
    });

    it('filters by status, kind, creation time and input size', async () => {
      const made = await seed();
      await subject.store.markProcessing(made[2]!.id);
      await subject.store.complete(made[0]!.id, input, output(9_000_000));
      assert.deepEqual(names(await list({ status: 'processing' })), ['clip.mp4']);
      assert.deepEqual(names(await list({ status: 'completed' })), ['a.jpg'], 'completion records the input');
      assert.deepEqual(names(await list({ kind: 'image' })), ['100%_done.png', 'a.jpg']);
      assert.deepEqual(names(await list({ since: 2_001_000, until: 2_003_000 })), [
        'clip.mp4',
        'report_2026.pdf',
      ]);
      assert.deepEqual(names(await list({ minSize: 2_000, maxSize: 50_000 })), [
        '100%_done.png',
        'report_2026.pdf',
      ]);
      assert.deepEqual(names(await list({ kind: 'image', minSize: 5 })), ['100%_done.png', 'a.jpg']);
    });

    it('matches q as a plain substring of the id or the name: wildcards are literal', async () => {
      const made = await seed();
      assert.deepEqual(names(await list({ q: 'REPORT' })), ['report_2026.pdf'], 'case-insensitive');
      assert.deepEqual(names(await list({ q: '%' })), ['100%_done.png']);
      assert.deepEqual(names(await list({ q: '_' })), ['100%_done.png', 'report_2026.pdf']);
      assert.deepEqual(names(await list({ q: 't_2' })), ['report_2026.pdf']);
      assert.deepEqual(names(await list({ q: 'o%' })), []);
      assert.deepEqual(names(await list({ q: '\\' })), []);
      assert.deepEqual(names(await list({ q: made[2]!.id.slice(9, 18) })), ['clip.mp4']);
    });

    it('knows the input of a fetched job once it is downloaded', async () => {
      subject.setNow(3_000_000);
      const { id } = await subject.store.create(newJob({ input: undefined }));
      assert.deepEqual(names(await list({ minSize: 0 })), []);
      await subject.store.setInput(id, { name: 'remote.gif', size: 77, sha1: 'c'.repeat(40) });
      assert.deepEqual(names(await list({ q: 'remote', minSize: 77, maxSize: 77 })), ['remote.gif']);
    });

    it('records the worker that claims each run and lists running jobs of every account, longest first', async () => {
      subject.setNow(5_000_000);
      const first = await subject.store.create(newJob());
      const second = await subject.store.create(newJob({ accountId: 'acct-2' }));
      const waiting = await subject.store.create(newJob());
      assert.deepEqual(await subject.store.listRunning(10), []);
      assert.equal((await subject.store.markProcessing(second.id, 'host-a:41:1'))?.worker, 'host-a:41:1');
      subject.setNow(4_000_000);
      await subject.store.markProcessing(first.id, 'host-b:7:2');
      const running = await subject.store.listRunning(10);
      assert.deepEqual(
        running.map((job) => [job.id, job.accountId, job.worker, job.startedAt]),
        [
          [first.id, 'acct-1', 'host-b:7:2', 4_000_000],
          [second.id, 'acct-2', 'host-a:41:1', 5_000_000],
        ],
      );
      assert.equal((await subject.store.listRunning(1)).length, 1);
      assert.equal((await subject.store.get(waiting.id))?.worker, undefined);
      // A re-run names its own worker; the finished job keeps the name of the worker that ran it.
      await subject.store.markProcessing(first.id, 'host-c:9:1');
      const done = await subject.store.complete(first.id, input, output(9_000_000));
      assert.equal(done.worker, 'host-c:9:1');
      assert.deepEqual(
        (await subject.store.listRunning(10)).map((job) => job.id),
        [second.id],
      );
    });
  });
}
