import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdmissionBudget } from '../../../src/processors/shared/admission-budget.ts';

describe('AdmissionBudget', () => {
  it('lets jobs that fit run together and makes the rest wait in order', async () => {
    const budget = new AdmissionBudget(40);
    const order: string[] = [];
    const a = await budget.acquire(24);
    const b = budget.acquire(24).then((release) => {
      order.push('b');
      return release;
    });
    const c = budget.acquire(10).then((release) => {
      order.push('c');
      return release;
    });
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(order, [], 'c does not overtake b although it would fit');
    assert.equal(budget.inUse, 24);
    assert.equal(budget.waiting, 2);
    a();
    const [releaseB, releaseC] = await Promise.all([b, c]);
    assert.deepEqual(order, ['b', 'c']);
    assert.equal(budget.inUse, 34);
    releaseB();
    releaseB(); // releasing twice frees once
    releaseC();
    assert.equal(budget.inUse, 0);
  });

  it('runs a job larger than the whole budget alone', async () => {
    const budget = new AdmissionBudget(40);
    const huge = await budget.acquire(100);
    assert.equal(budget.inUse, 40);
    let small = false;
    const next = budget.acquire(1).then((release) => {
      small = true;
      return release;
    });
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(small, false);
    huge();
    (await next)();
    assert.equal(small, true);
  });

  it('an aborted wait leaves the queue and rejects with the reason', async () => {
    const budget = new AdmissionBudget(10);
    const held = await budget.acquire(10);
    const controller = new AbortController();
    const waiting = budget.acquire(5, controller.signal);
    controller.abort(new Error('cancelled'));
    await assert.rejects(waiting, /cancelled/);
    assert.equal(budget.waiting, 0);
    held();
    assert.equal(budget.inUse, 0);
  });
});
