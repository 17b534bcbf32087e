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

describe('POST /1.0/fetch: caller headers across redirects', () => {
  let chelsea: Buffer;
  let other: Receiver; // another origin (127.0.0.2)
  let source: Receiver;
  let presso: TestPresso;

  before(async () => {
    chelsea = await readFile(corpus.chelsea);
    const image = (res: import('node:http').ServerResponse) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': chelsea.length }).end(chelsea);
    };
    other = await startReceiver((_req, res) => image(res), '127.0.0.2');
    source = await startReceiver((req, res) => {
      if (req.url === '/cross') return void res.writeHead(302, { location: `${other.origin}/cat.png` }).end();
      if (req.url === '/same') return void res.writeHead(302, { location: '/cat.png' }).end();
      image(res);
    });
    presso = await startTestPresso({ PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32,127.0.0.2/32' });
  });
  after(async () => {
    await presso?.stop();
    await Promise.all([source?.close(), other?.close()]);
  });

  test('a cross-origin redirect drops every caller header; the new origin gets the defaults', async () => {
    const response = await presso.fetchJson({
      url: `${source.origin}/cross`,
      headers: { 'X-Api-Key': 'secret-for-source', Cookie: 'session=1' },
    });
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    assert.equal(source.requests.at(-1)!.headers['x-api-key'], 'secret-for-source');
    const landed = other.requests.at(-1)!.headers;
    assert.equal(landed['x-api-key'], undefined);
    assert.equal(landed.cookie, undefined);
    assert.match(String(landed['user-agent']), /^Presso\/1\.0 /);
  });

  test('a same-origin redirect keeps the caller headers', async () => {
    const before = source.requests.length;
    const response = await presso.fetchJson({
      url: `${source.origin}/same`,
      headers: { 'X-Api-Key': 'secret-for-source' },
    });
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    const hops = source.requests.slice(before);
    assert.deepEqual(
      hops.map((hop) => [hop.url, hop.headers['x-api-key']]),
      [
        ['/same', 'secret-for-source'],
        ['/cat.png', 'secret-for-source'],
      ],
    );
  });
});
