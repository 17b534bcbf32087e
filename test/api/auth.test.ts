/** Authentication (Basic and Bearer), the 401 variants and the HTTPS-only rule, against a real server. */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { basic, bearer, startTestPresso, type TestPresso } from '../support/presso.ts';
import { assertErrorBody, UUID } from './helpers.ts';

describe('authentication', () => {
  let presso: TestPresso;
  before(async () => {
    presso = await startTestPresso();
  });
  after(() => presso?.stop());

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
      assert.equal(body.name, 'api-test');
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
    await presso.services.accounts.revokeKey(other.keyId);
    await assertErrorBody(await presso.request('/1.0/account', { auth: bearer(other.key) }), 401);
    await assertErrorBody(await presso.request('/1.0/account', { auth: basic(other.key) }), 401);
    await assertErrorBody(
      await presso.request('/1.0/jobs/00000000-0000-4000-8000-000000000000', { auth: bearer(other.key) }),
      401,
    );
  });

  test('plain HTTP on the same port is refused with 403 and nothing is processed', async () => {
    const other = await presso.createAccount('plain-http');
    const boundary = 'presso-boundary';
    const multipart = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n` +
          'Content-Type: image/png\r\n\r\n',
      ),
      Buffer.from('not really a png'),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const { status, headers, body } = await new Promise<{
      status: number;
      headers: http.IncomingHttpHeaders;
      body: string;
    }>((resolve, reject) => {
      const req = http.request(
        `http://127.0.0.1:${presso.port}/1.0/upload`,
        {
          method: 'POST',
          headers: {
            authorization: bearer(other.key),
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': multipart.length,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      req.on('error', reject);
      req.end(multipart);
    });
    assert.equal(status, 403);
    const error = JSON.parse(body) as Record<string, unknown>;
    assert.equal(error.success, false);
    assert.equal(error.status, 403);
    assert.match(String(error.id), UUID);
    assert.match(String(error.message), /HTTPS/);
    assert.equal(headers['x-request-id'], error.id);
    // Nothing was processed: the account has no job, no request counted, and the queue is empty.
    const account = await presso.request('/1.0/account', { auth: bearer(other.key) });
    const usage = ((await account.json()) as { usage: { jobs: number; bytesIn: number } }).usage;
    assert.equal(usage.jobs, 0);
    assert.equal(usage.bytesIn, 0);
    assert.equal(await presso.services.queue.size(), 0);
  });
});
