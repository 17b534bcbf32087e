/**
 * The operator's routes through app.inject(): accounts listed, created (with an owner's invite), limited and
 * disabled (its keys, sessions and sign-ins refused, then accepted again once enabled), and the overview.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bodyOf, type ErrorBody, PASSWORD, type SignedInClient, signIn } from '../support/dashboard.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';

const json = (body: unknown) => ({
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});

describe('operator routes', () => {
  let t: TestApp;
  let owner: SignedInClient;
  let operator: SignedInClient;
  before(async () => {
    t = await buildTestApp();
    const { users } = t.services;
    await users.createUser(t.account.id, 'owner@example.com', 'owner', PASSWORD);
    const ops = await t.createAccount('operators');
    await users.createUser(ops.account.id, 'operator@example.com', 'operator', PASSWORD);
    owner = await signIn(t, 'owner@example.com');
    operator = await signIn(t, 'operator@example.com');
  });
  after(() => t.close());

  it('lists, creates, limits and disables accounts; a disabled account’s keys, sessions and sign-ins are refused', async () => {
    const list = await bodyOf<{ accounts: { id: string }[] }>(
      await operator.request('/1.0/operator/accounts'),
    );
    const mine = list.accounts.find((a) => a.id === t.account.id) ?? {};
    assert.deepEqual(Object.keys(mine).sort(), ['createdAt', 'disabled', 'id', 'name', 'rateLimit', 'usage']);
    const created = await operator.request('/1.0/operator/accounts', {
      method: 'POST',
      body: JSON.stringify({ name: 'customer', rateLimit: 50, ownerEmail: 'boss@customer.example' }),
    });
    assert.equal(created.status, 201);
    const { account, key, invite } = await bodyOf<{
      account: { id: string; rateLimit: number };
      key: { key: string };
      invite: { url: string };
    }>(created);
    assert.equal(account.rateLimit, 50);
    assert.match(key.key, /^psk_/);
    assert.match(invite.url, /#\/invite\//);
    const limited = await operator.request(`/1.0/operator/accounts/${account.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ rateLimit: 7 }),
    });
    assert.equal((await bodyOf<{ rateLimit: number }>(limited)).rateLimit, 7);
    assert.equal(
      (await t.request('/1.0/account', { auth: `Bearer ${key.key}` })).headers.get('x-ratelimit-limit'),
      '7',
    );
    const disabled = await operator.request(`/1.0/operator/accounts/${t.account.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ disabled: true }),
    });
    assert.equal((await bodyOf<{ disabled: boolean }>(disabled)).disabled, true);
    const byKey = await t.request('/1.0/account');
    assert.equal(byKey.status, 403);
    assert.match((await bodyOf<ErrorBody>(byKey)).message, /disabled/);
    assert.equal((await owner.request('/1.0/session')).status, 403);
    const signingIn = await t.request('/1.0/session', {
      method: 'POST',
      auth: false,
      ...json({ email: 'owner@example.com', password: PASSWORD }),
    });
    assert.equal(signingIn.status, 403);
    await operator.request(`/1.0/operator/accounts/${t.account.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ disabled: false }),
    });
    assert.equal((await t.request('/1.0/account')).status, 200);
    assert.equal(
      (await operator.request('/1.0/operator/accounts/unknown', { method: 'PATCH', body: '{}' })).status,
      404,
    );
  });

  it('gives an overview of the queue, workers, running jobs by worker, disk and totals', async () => {
    const { jobStore } = t.services;
    const running = await jobStore.create({
      id: 'job-running-on-a',
      accountId: t.account.id,
      source: { type: 'upload' },
      params: {},
      webhookUrl: undefined,
      input: { name: 'big.mp4', size: 5, sha1: 'a'.repeat(40) },
      kind: 'video',
    } as Parameters<typeof jobStore.create>[0]);
    await jobStore.markProcessing(running.id, 'host-a:12:1');
    const response = await operator.request('/1.0/operator/overview');
    assert.equal(response.status, 200);
    const body = await bodyOf<{
      queue: { lanes: { lane: string }[] };
      workers: unknown[];
      running: { worker: string; jobs: { id: string; accountId: string; kind: string; name: string }[] }[];
      disk: { free: number; total: number };
      jobs: unknown[];
      webhooks: unknown[];
    }>(response);
    assert.deepEqual(
      body.queue.lanes.map((l) => l.lane),
      ['standard', 'media'],
    );
    assert.deepEqual(body.workers, [
      { lane: 'standard', workers: 2 },
      { lane: 'media', workers: 1 },
    ]);
    const [group] = body.running.filter((g) => g.worker === 'host-a:12:1');
    assert.deepEqual(
      group?.jobs.map((j) => [j.id, j.accountId, j.kind, j.name]),
      [['job-running-on-a', t.account.id, 'video', 'big.mp4']],
    );
    assert.ok(body.disk.total > 0 && body.disk.free > 0 && body.disk.free <= body.disk.total);
    assert.ok(Array.isArray(body.jobs) && Array.isArray(body.webhooks));
  });
});
