/** The rolling-window rate limit: 429 with Retry-After, and the X-RateLimit-* headers on every answer. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertErrorBody } from '../api/helpers.ts';
import { corpus } from '../support/corpus.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';
import { bearer } from '../support/presso.ts';

const rateHeaders = (response: { headers: { get(name: string): string | null } }) => ({
  limit: response.headers.get('x-ratelimit-limit'),
  remaining: response.headers.get('x-ratelimit-remaining'),
  reset: response.headers.get('x-ratelimit-reset'),
});

describe('rate limit', () => {
  let presso: TestApp;
  before(async () => {
    presso = await buildTestApp();
  });
  after(() => presso?.close());

  test('the 4th request of an account limited to 3 is 429 with Retry-After and the headers', async () => {
    const { key } = await presso.createAccount('limited', 3);
    const auth = bearer(key);
    for (const expected of ['2', '1', '0']) {
      const response = await presso.request('/1.0/account', { auth });
      assert.equal(response.status, 200);
      const headers = rateHeaders(response);
      assert.equal(headers.limit, '3');
      assert.equal(headers.remaining, expected);
      assert.match(headers.reset ?? '', /^\d+$/);
      await response.arrayBuffer();
    }
    const refused = await presso.request('/1.0/account', { auth });
    const body = await assertErrorBody(refused, 429);
    const retryAfter = refused.headers.get('retry-after');
    assert.match(retryAfter ?? '', /^\d+$/);
    assert.ok(Number(retryAfter) > 0 && Number(retryAfter) <= 900);
    assert.equal(refused.headers.get('x-ratelimit-limit'), '3');
    assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
    assert.match(refused.headers.get('x-ratelimit-reset') ?? '', /^\d+$/);
    assert.equal(body.message, `Rate limit exceeded. Retry in ${retryAfter} seconds.`);

    // Refused requests do nothing: an upload is refused too, before its body is looked at.
    const upload = await presso.upload(corpus.chelsea, undefined, auth);
    await assertErrorBody(upload, 429);
  });

  test('the headers are on 2xx and 4xx answers, counted per key', async () => {
    const { key } = await presso.createAccount('headers', 10);
    const auth = bearer(key);
    const ok = await presso.upload(corpus.chelsea, undefined, auth);
    assert.equal(ok.status, 200);
    assert.deepEqual(rateHeaders(ok).limit, '10');
    assert.equal(rateHeaders(ok).remaining, '9');
    await ok.arrayBuffer();

    const invalid = await presso.upload(corpus.chelsea, { image: { resize: { mode: 'auto' } } }, auth);
    await assertErrorBody(invalid, 422);
    assert.equal(rateHeaders(invalid).remaining, '8');

    const missing = await presso.request('/1.0/jobs/3f0c1a52-7d55-4c1e-9d7b-0a6f1f2b9e11', { auth });
    await assertErrorBody(missing, 404);
    assert.equal(rateHeaders(missing).limit, '10');
    assert.equal(rateHeaders(missing).remaining, '7');

    // Unauthenticated answers carry the (per-address) headers too.
    const anonymous = await presso.request('/1.0/account', { auth: false });
    await assertErrorBody(anonymous, 401);
    const health = await presso.request('/healthz', { auth: false });
    assert.equal(health.status, 200);
    assert.ok(rateHeaders(health).limit);
    await health.arrayBuffer();

    // The main test account was not affected by the other keys.
    const mine = await presso.request('/1.0/account');
    assert.equal(rateHeaders(mine).limit, '100000');
    await mine.arrayBuffer();
  });
});
