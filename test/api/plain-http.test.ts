/**
 * The HTTPS-only rule on the real listener: plain HTTP on the TLS port gets the documented 403 body
 * (the listener tells the protocols apart by the first byte), and nothing is processed.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { bearer, startTestPresso, type TestPresso } from '../support/presso.ts';
import { UUID } from './helpers.ts';

describe('plain HTTP on the HTTPS port', () => {
  let presso: TestPresso;
  before(async () => {
    presso = await startTestPresso();
  });
  after(() => presso?.stop());

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
