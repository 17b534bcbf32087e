/**
 * Behaviour every JobQueue must have (SQLite now, BullMQ for the scaled-out mode): bounded
 * concurrency, every job handled once, interrupted jobs handed back, and nothing lost across a restart.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { JobQueue } from '../../src/jobs/job-queue.ts';
import { until } from '../support/until.ts';

export interface JobQueueUnderTest {
  /** A queue over the same backing state (a new process after a crash, in effect). */
  open(): Promise<JobQueue>;
  close(): Promise<void>;
  /**
   * Makes `queue` behave as if its process died (no more lock renewals, nothing handed back); the
   * embedded queue needs nothing, since one process owns its data and the next one resets every claim.
   */
  crash?(queue: JobQueue): Promise<void>;
}

/** A promise with its resolver outside. */
export function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Starts `queue` with one worker and resolves with the ids it ran once `count` have run. */
async function runAll(queue: JobQueue, count: number): Promise<string[]> {
  const seen: string[] = [];
  queue.start(async (id) => {
    seen.push(id);
  }, 1);
  await until(() => seen.length === count);
  return seen;
}

/**
 * Inside a `describe`: a fresh subject for each test, and `open` for the queues a test uses, every one of
 * them stopped (and the subject closed) after it.
 */
export function queueSubjects(factory: () => Promise<JobQueueUnderTest>) {
  let subject: JobQueueUnderTest;
  const queues: JobQueue[] = [];
  beforeEach(async () => {
    subject = await factory();
  });
  afterEach(async () => {
    for (const q of queues.splice(0)) await q.stop(100);
    await subject.close();
  });
  return {
    subject: () => subject,
    open: async () => {
      const q = await subject.open();
      queues.push(q);
      return q;
    },
    /** Leaves `q` out of the stops after the test. */
    forget: (q: JobQueue) => {
      queues.splice(queues.indexOf(q), 1);
    },
  };
}

export function jobQueueContract(name: string, factory: () => Promise<JobQueueUnderTest>): void {
  describe(`JobQueue contract: ${name}`, () => {
    const { subject, open, forget } = queueSubjects(factory);

    it('runs every enqueued job once, in order, within the concurrency', async () => {
      const queue = await open();
      const seen: string[] = [];
      let running = 0;
      let peak = 0;
      queue.start(async (id) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 10));
        seen.push(id);
        running--;
      }, 2);
      const ids = Array.from({ length: 8 }, (_, i) => `job-${i}`);
      for (const id of ids) await queue.enqueue(id);
      await until(() => seen.length === ids.length);
      assert.deepEqual([...seen].sort(), ids);
      assert.equal(peak, 2);
      assert.equal(await queue.size(), 0);
    });

    it('enqueuing the same id twice runs it once', async () => {
      const queue = await open();
      const gate = deferred();
      const seen: string[] = [];
      queue.start(async (id) => {
        await gate.promise;
        seen.push(id);
      }, 1);
      await queue.enqueue('dup');
      await queue.enqueue('dup');
      gate.resolve();
      await until(() => seen.length >= 1);
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(seen, ['dup']);
    });

    it('lanes: a busy media lane does not hold standard jobs, and media jobs wait for their own workers', async () => {
      const queue = await open();
      await queue.enqueue('media-1', { lane: 'media' });
      await queue.enqueue('media-2', { lane: 'media' });
      await queue.enqueue('standard-1');
      await queue.enqueue('standard-2', { lane: 'standard' });
      // Counted before any worker starts, so nothing has run yet.
      assert.deepEqual(
        (await queue.stats()).map((l) => [l.lane, l.waiting, l.running]),
        [
          ['standard', 2, 0],
          ['media', 2, 0],
        ],
      );
      const gate = deferred();
      const seen: string[] = [];
      queue.start(
        async (id, signal) => {
          // Held until the gate opens; a stop's abort also lets it go (a failing assertion must not hang).
          if (id.startsWith('media')) {
            await Promise.race([
              gate.promise,
              new Promise((r) => signal.addEventListener('abort', r, { once: true })),
            ]);
          }
          seen.push(id);
        },
        1,
        1,
      );
      // Both standard jobs run on the one standard worker while the media lane is stuck on media-1.
      await until(() => seen.length === 2);
      assert.deepEqual([...seen].sort(), ['standard-1', 'standard-2']);
      gate.resolve();
      await until(() => seen.length === 4);
      assert.deepEqual(seen.slice(2), ['media-1', 'media-2']);
    });

    it('urgent jobs (a client waits) go before background work; stats show the backlog and its age', async () => {
      const queue = await open();
      await queue.enqueue('background-1');
      await queue.enqueue('background-2');
      await queue.enqueue('urgent-1', { urgent: true });
      const [standard] = await queue.stats();
      assert.equal(standard?.waiting, 3);
      assert.ok((standard?.oldestWaitingSeconds ?? -1) >= 0);
      const seen = await runAll(queue, 3);
      assert.deepEqual(seen, ['urgent-1', 'background-1', 'background-2']);
      // The last handler has been called; the queue records its end just after it returns.
      const idle = (stats: { waiting: number; running: number }[]) =>
        stats.every((lane) => lane.waiting === 0 && lane.running === 0);
      await until(async () => idle(await queue.stats()), 'an empty backlog in the stats');
    });

    it('keeps waiting work across a restart', async () => {
      const first = await open();
      await first.enqueue('kept-1');
      await first.enqueue('kept-2');
      assert.equal(await first.size(), 2);
      const second = await open();
      assert.deepEqual(await runAll(second, 2), ['kept-1', 'kept-2']);
    });

    it('hands a job interrupted by stop back to the queue, and a new process runs it', async () => {
      const first = await open();
      const started = deferred();
      first.start(async (_id, signal) => {
        started.resolve();
        await new Promise<void>((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      }, 1);
      await first.enqueue('interrupted');
      await started.promise;
      await first.stop(20);
      assert.equal(await first.size(), 1);
      // At once: the factories set a retry delay far above the hang guard, which only a failed run waits.
      const second = await open();
      assert.deepEqual(await runAll(second, 1), ['interrupted']);
    });

    it('a stop does not wait for a handler that ignores its abort; another process runs the job', async () => {
      const first = await open();
      const started = deferred();
      first.start(async () => {
        started.resolve();
        await new Promise(() => {}); // ignores the abort and never settles
      }, 1);
      await first.enqueue('stubborn');
      await started.promise;
      // Would hang (and fail on the hang guard) if the stop waited for the handler.
      await first.stop(20);
      const second = await open();
      assert.deepEqual(await runAll(second, 1), ['stubborn']);
    });

    it('a job claimed by a process that died runs again in the next one', async () => {
      const first = await open();
      const started = deferred();
      first.start(async () => {
        started.resolve();
        await new Promise(() => {}); // never finishes: the process "dies" holding the job
      }, 1);
      await first.enqueue('orphan');
      await started.promise;
      await subject().crash?.(first);
      const second = await open();
      assert.deepEqual(await runAll(second, 1), ['orphan']);
      forget(first); // its handler never settles; do not wait for it
    });
  });
}
