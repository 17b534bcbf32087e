/** Authentication (Basic and Bearer) and the 401 variants, through app.inject(). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertErrorBody } from '../api/helpers.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';
import { basic, bearer } from '../support/presso.ts';

describe('authentication', () => {
  let presso: TestApp;
  before(async () => {
    presso = await buildTestApp();
  });
  after(() => presso?.close());

  for (const [name, header] of [
    ['Basic with a trailing colon', () => basic(presso.key, true)],
    ['Basic without the colon', () => basic(presso.key, false)],
    ['Bearer', () => bearer(presso.key)],
  ] as const) {
    test(`${name} is accepted by GET /1.0/account`, async () => {
      const response = await presso.request('/1.0/account', { auth: header() });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { id: string; name: string };
      assert.equal(body.id, presso.account.id);
      assert.equal(body.name, 'http-test');
    });
  }

  test('a missing key is 401 with the error body', async () => {
    const body = await assertErrorBody(await presso.request('/1.0/account', { auth: false }), 401);
    assert.match(String(body.message), /key is required/i);
  });

  for (const [name, header] of [
    ['an unknown scheme', 'Digest abc'],
    ['Basic that is not user:empty-password', `Basic ${Buffer.from('user:password').toString('base64')}`],
    ['a bare scheme', 'Bearer'],
  ] as const) {
    test(`a malformed Authorization header (${name}) is 401`, async () => {
      const body = await assertErrorBody(await presso.request('/1.0/account', { auth: header }), 401);
      assert.match(String(body.message), /malformed/i);
    });
  }

  test('an unknown key is 401', async () => {
    const unknown = `psk_${'A'.repeat(43)}`;
    const body = await assertErrorBody(await presso.request('/1.0/account', { auth: bearer(unknown) }), 401);
    assert.match(String(body.message), /invalid or has been revoked/);
  });

  test('a revoked key is 401, on every endpoint', async () => {
    const other = await presso.createAccount('to-revoke');
    assert.equal((await presso.request('/1.0/account', { auth: bearer(other.key) })).status, 200);
    await presso.accounts.revokeKey(other.keyId);
    await assertErrorBody(await presso.request('/1.0/account', { auth: bearer(other.key) }), 401);
    await assertErrorBody(await presso.request('/1.0/account', { auth: basic(other.key) }), 401);
    await assertErrorBody(
      await presso.request('/1.0/jobs/00000000-0000-4000-8000-000000000000', { auth: bearer(other.key) }),
      401,
    );
  });
});
