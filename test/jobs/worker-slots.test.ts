/** Worker names for the operator's view: host:pid:slot, the lowest free slot, never two runs on one. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkerSlots } from '../../src/jobs/worker-slots.ts';

test('runs at once get distinct slots from 1, and a released slot is the next taken', () => {
  const slots = new WorkerSlots('box', 42);
  const a = slots.take();
  const b = slots.take();
  const c = slots.take();
  assert.deepEqual([a, b, c], ['box:42:1', 'box:42:2', 'box:42:3']);
  slots.release(b);
  assert.equal(slots.take(), 'box:42:2');
  assert.equal(slots.take(), 'box:42:4');
});
