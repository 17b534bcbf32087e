/**
 * Fair sharing, which every JobQueue must give (SQLite and BullMQ alike): accounts with waiting work take
 * turns in each lane, so one account's flood cannot starve another's job. The bound is counted in jobs,
 * in the order they started, never in seconds: once account B has a job waiting, at most one job of each
 * other account with waiting work starts before it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EnqueueOptions, JobQueue } from '../../src/jobs/job-queue.ts';
import { until } from '../support/until.ts';
import { deferred, type JobQueueUnderTest, queueSubjects } from './job-queue.contract.ts';

function gate() {
  const { promise, resolve } = deferred();
  return { opened: promise, open: resolve };
}

/** A recorder of the order jobs started in; a job listed in `held` waits for its gate (or the stop's abort). */
function startRecorder(
  queue: JobQueue,
  options: { concurrency?: number; onStart?: (id: string) => Promise<void> | undefined } = {},
) {
  const started: string[] = [];
  const done: string[] = [];
  const held = new Map<string, ReturnType<typeof gate>>();
  queue.start(async (id, signal) => {
    started.push(id);
    await options.onStart?.(id);
    const hold = held.get(id);
    if (hold) {
      await Promise.race([
        hold.opened,
        new Promise((r) => signal.addEventListener('abort', r, { once: true })),
      ]);
    }
    done.push(id);
  }, options.concurrency ?? 1);
  return { started, done, held };
}

const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);

async function enqueueAll(queue: JobQueue, jobIds: string[], options: EnqueueOptions): Promise<void> {
  for (const id of jobIds) await queue.enqueue(id, options);
}

/** How many jobs of `prefix` started after `mark` (an index into `started`) and before `id` did. */
function startedBetween(started: string[], mark: number, id: string, prefix: string): number {
  const at = started.indexOf(id);
  assert.ok(at >= 0, `${id} never started: ${started.join(' ')}`);
  return started.slice(mark, at).filter((s) => s.startsWith(prefix)).length;
}

export function jobQueueFairnessContract(name: string, factory: () => Promise<JobQueueUnderTest>): void {
  describe(`JobQueue fairness contract: ${name}`, () => {
    const { open } = queueSubjects(factory);

    it('while account A floods a lane, B’s job starts after at most one more of A’s', async () => {
      const queue = await open();
      const recorder = startRecorder(queue);
      // A's first job holds the only worker while A queues twelve more and then B queues one.
      const first = gate();
      recorder.held.set('a-0', first);
      await queue.enqueue('a-0', { account: 'acct-a' });
      await until(() => recorder.started.includes('a-0'), 'a-0 to start');
      await enqueueAll(queue, ids('a', 12), { account: 'acct-a' });
      const mark = recorder.started.length;
      await queue.enqueue('b-1', { account: 'acct-b' });
      first.open();
      await until(() => recorder.done.length === 14, 'every job to run');
      assert.ok(
        startedBetween(recorder.started, mark, 'b-1', 'a-') <= 1,
        `B waited for more than one of A's jobs: ${recorder.started.join(' ')}`,
      );
    });

    it('accounts with waiting work take turns, one job each, in every lane', async () => {
      const queue = await open();
      // Queued before any worker runs, so the whole order is the queue's choice.
      for (const lane of ['standard', 'media'] as const) {
        await enqueueAll(queue, ids(`${lane}-a`, 4), { account: 'acct-a', lane });
        await enqueueAll(queue, ids(`${lane}-b`, 2), { account: 'acct-b', lane });
        await enqueueAll(queue, ids(`${lane}-c`, 1), { account: 'acct-c', lane });
      }
      const started: string[] = [];
      queue.start(
        async (id) => {
          started.push(id);
        },
        1,
        1,
      );
      await until(() => started.length === 14, 'every job to run');
      for (const lane of ['standard', 'media']) {
        const order = started.filter((id) => id.startsWith(lane)).map((id) => id.slice(lane.length + 1));
        // Each round serves every account that still has work, once; an account's own jobs keep their order.
        assert.deepEqual(
          order
            .slice(0, 3)
            .map((id) => id[0])
            .sort(),
          ['a', 'b', 'c'],
          order.join(' '),
        );
        assert.deepEqual(
          order
            .slice(3, 5)
            .map((id) => id[0])
            .sort(),
          ['a', 'b'],
          order.join(' '),
        );
        assert.deepEqual(order.slice(5), ['a-3', 'a-4'], order.join(' '));
        for (const account of ['a', 'b']) {
          const own = order.filter((id) => id.startsWith(account));
          assert.deepEqual(own, [...own].sort(), order.join(' '));
        }
      }
    });

    it('an account that queues its next job only as the last one starts still takes its turn, not every turn', async () => {
      const queue = await open();
      // B's account sorts first, so no tie between the two may be broken by name in B's favour.
      await enqueueAll(queue, ids('a', 4), { account: 'acct-z' });
      await queue.enqueue('b-1', { account: 'acct-b' });
      // B keeps exactly one job waiting: each of its jobs queues the next one when it starts.
      const next = new Map([
        ['b-1', 'b-2'],
        ['b-2', 'b-3'],
        ['b-3', 'b-4'],
      ]);
      const recorder = startRecorder(queue, {
        onStart: (id) => {
          const following = next.get(id);
          return following === undefined ? undefined : queue.enqueue(following, { account: 'acct-b' });
        },
      });
      await until(() => recorder.done.length === 8, 'every job to run');
      const { started } = recorder;
      // A is never passed over twice in a row: between two of B's starts, one of A's (while A has work).
      for (let i = 1; i <= 3; i++) {
        assert.equal(
          startedBetween(started, started.indexOf(`b-${i}`) + 1, `b-${i + 1}`, 'a-'),
          1,
          started.join(' '),
        );
      }
    });

    it('synchronous work goes first within its account, and takes that account’s turn', async () => {
      const queue = await open();
      await enqueueAll(queue, ids('a', 3), { account: 'acct-a' });
      await queue.enqueue('b-background', { account: 'acct-b' });
      await queue.enqueue('b-urgent', { account: 'acct-b', urgent: true });
      await queue.enqueue('a-urgent', { account: 'acct-a', urgent: true });
      const started: string[] = [];
      queue.start(async (id) => {
        started.push(id);
      }, 1);
      await until(() => started.length === 6, 'every job to run');
      // Each account's urgent job is its first; the accounts still alternate.
      assert.equal(started.filter((id) => id.startsWith('a-'))[0], 'a-urgent', started.join(' '));
      assert.equal(started.filter((id) => id.startsWith('b-'))[0], 'b-urgent', started.join(' '));
      assert.deepEqual(
        started
          .slice(0, 4)
          .map((id) => id[0])
          .sort(),
        ['a', 'a', 'b', 'b'],
        started.join(' '),
      );
    });
  });
}
