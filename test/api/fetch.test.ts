/**
 * End to end: POST /1.0/fetch downloads from a local source through the guarded client and converts with
 * the real image processor. Headers, credentials, the guard and the errors are in test/http/fetch.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { corpus } from '../support/corpus.ts';
import { decode, ssim } from '../support/images.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { type CompletedResult, download } from './helpers.ts';

describe('POST /1.0/fetch', () => {
  let chelsea: Buffer;
  let source: Receiver;
  let presso: TestPresso;

  before(async () => {
    chelsea = await readFile(corpus.chelsea);
    source = await startReceiver((req, res) => {
      if (req.url.startsWith('/missing')) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('nope');
        return;
      }
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': chelsea.length }).end(chelsea);
    });
    presso = await startTestPresso({ PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32' });
  });
  after(async () => {
    await presso?.stop();
    await source?.close();
  });

  test('downloads with the default headers and processes the file', async () => {
    const before = source.requests.length;
    const response = await presso.fetchJson({
      url: `${source.origin}/pics/cat.png`,
      image: { format: 'webp' },
    });
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult;
    const req = source.requests[before]!;
    assert.equal(req.method, 'GET');
    assert.equal(req.url, '/pics/cat.png');
    assert.match(String(req.headers['user-agent']), /^Presso\/1\.0 \(\+https?:\/\/[^)]+\)$/);
    assert.equal(req.headers.accept, '*/*');
    assert.equal(req.headers['accept-language'], 'en-US,en;q=0.8');
    assert.equal(req.headers['cache-control'], 'no-cache');
    assert.equal(req.headers.pragma, 'no-cache');
    assert.equal(req.headers.authorization, undefined);

    assert.equal(result.input.name, 'cat.png');
    assert.equal(result.input.format, 'png');
    assert.equal(result.input.size, chelsea.length);
    assert.equal(result.input.sha1, createHash('sha1').update(chelsea).digest('hex'));
    assert.equal(result.output.name, 'cat.webp');
    const output = await download(presso, result);
    const decoded = await decode(output);
    assert.equal(decoded.format, 'webp');
    assert.deepEqual([decoded.width, decoded.height], [451, 300]);
    assert.ok((await ssim(output, chelsea)) > 0.9);
  });
});
