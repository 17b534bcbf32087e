/**
 * POST /1.0/fetch through app.inject() against local HTTP sources: outbound headers, credentials,
 * redirects, the address guard and the errors. The fetched file is handed back by the fake processor;
 * a real fetch and conversion runs end to end in test/api/fetch.test.ts.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { assertErrorBody, type CompletedResult, download } from '../api/helpers.ts';
import { corpus } from '../support/corpus.ts';
import { fetchCatAsWebp, servePng, startPngSource } from '../support/fetch-source.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';

describe('POST /1.0/fetch', () => {
  let chelsea: Buffer;
  let source: Receiver;
  let presso: TestApp;

  before(async () => {
    chelsea = await readFile(corpus.chelsea);
    source = await startPngSource(chelsea);
    presso = await buildTestApp({ env: { PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32' } });
  });
  after(async () => {
    await presso?.close();
    await source?.close();
  });

  test('downloads with the default headers, and the job gets the file as it was served', async () => {
    const result = await fetchCatAsWebp(presso, source, chelsea);
    assert.ok((await download(presso, result)).equals(chelsea));
  });

  test('custom headers override and extend the defaults; user:pass@ arrives as Basic', async () => {
    const before = source.requests.length;
    const url = `http://alice:s%3Acret@127.0.0.1:${source.port}/cat.png`;
    const response = await presso.fetchJson({
      url,
      headers: { Accept: 'image/png', 'User-Agent': 'MyBot/2', 'X-Trace': 'abc123' },
    });
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult;
    const req = source.requests[before]!;
    assert.equal(req.headers.accept, 'image/png');
    assert.equal(req.headers['user-agent'], 'MyBot/2');
    assert.equal(req.headers['x-trace'], 'abc123');
    assert.equal(req.headers['accept-language'], 'en-US,en;q=0.8');
    assert.equal(req.headers.pragma, 'no-cache');
    assert.equal(req.headers.authorization, `Basic ${Buffer.from('alice:s:cret').toString('base64')}`);
    assert.equal(req.url, '/cat.png', 'credentials are not in the request line');
    assert.ok((await download(presso, result)).equals(chelsea));
  });

  test('a source answering 404 is 502 naming the source', async () => {
    const response = await presso.fetchJson({ url: `${source.origin}/missing/cat.png` });
    const body = await assertErrorBody(response, 502);
    assert.ok(String(body.message).includes(`${source.origin}/missing/cat.png`), String(body.message));
    assert.match(String(body.message), /404/);
  });

  test('a body that is not JSON is 415', async () => {
    const response = await presso.request('/1.0/fetch', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: `url=${source.origin}/cat.png`,
    });
    await assertErrorBody(response, 415);
  });

  test('invalid JSON is 422 saying so', async () => {
    const response = await presso.request('/1.0/fetch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"url": "http://x',
    });
    const body = await assertErrorBody(response, 422);
    assert.match(String(body.message), /does not contain valid JSON data/);
  });

  test('a missing url and a bad parameter are both reported', async () => {
    const response = await presso.fetchJson({ image: { resize: { mode: 'auto' } } });
    const body = await assertErrorBody(response, 422);
    const fields = (body.errors as Array<{ field: string }>).map((e) => e.field);
    assert.ok(fields.includes('url'), fields.join(', '));
    assert.ok(fields.includes('image.resize'), fields.join(', '));
  });
});

describe('POST /1.0/fetch: the outbound address guard', () => {
  let source: Receiver;
  let redirector: Receiver;
  let guarded: TestApp;
  let allowsSecondLoopback: TestApp;

  before(async () => {
    const chelsea = await readFile(corpus.chelsea);
    source = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }).end(chelsea);
    });
    redirector = await startReceiver((_req, res) => {
      res.writeHead(302, { location: `${source.origin}/cat.png` }).end();
    }, '127.0.0.2');
    guarded = await buildTestApp();
    allowsSecondLoopback = await buildTestApp({ env: { PRESSO_OUTBOUND_ALLOW: '127.0.0.2/32' } });
  });
  after(async () => {
    await guarded?.close();
    await allowsSecondLoopback?.close();
    await source?.close();
    await redirector?.close();
  });

  const refusedUrls = () => [
    `${source.origin}/cat.png`,
    `http://[::ffff:127.0.0.1]:${source.port}/cat.png`,
    `http://localhost:${source.port}/cat.png`,
    `http://[::1]:${source.port}/cat.png`,
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/x.png',
  ];

  test('loopback, mapped, named-loopback and private URLs are 422 on url by default', async () => {
    for (const url of refusedUrls()) {
      const response = await guarded.fetchJson({ url });
      const body = await assertErrorBody(response, 422);
      const errors = body.errors as Array<{ field: string; message: string }>;
      assert.equal(errors.length, 1, url);
      assert.equal(errors[0]!.field, 'url', url);
      assert.match(errors[0]!.message, /not allowed/, url);
    }
    assert.equal(source.requests.length, 0, 'nothing reached the local server');
  });

  test('a redirect from an allowed address to loopback is 422 on url', async () => {
    const response = await allowsSecondLoopback.fetchJson({ url: `${redirector.origin}/start.png` });
    const body = await assertErrorBody(response, 422);
    const errors = body.errors as Array<{ field: string; message: string }>;
    assert.deepEqual(
      errors.map((e) => e.field),
      ['url'],
    );
    assert.match(errors[0]!.message, /127\.0\.0\.1/);
    assert.equal(redirector.requests.length, 1, 'the first hop was fetched');
    assert.equal(source.requests.length, 0, 'the loopback target was never contacted');
  });

  test('non-http schemes are 422 on url', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/x.png', 'not a url']) {
      const body = await assertErrorBody(await guarded.fetchJson({ url }), 422);
      assert.deepEqual(
        (body.errors as Array<{ field: string }>).map((e) => e.field),
        ['url'],
        url,
      );
    }
  });
});

describe('POST /1.0/fetch: caller headers across redirects', () => {
  let chelsea: Buffer;
  let other: Receiver; // another origin (127.0.0.2)
  let source: Receiver;
  let presso: TestApp;

  before(async () => {
    chelsea = await readFile(corpus.chelsea);
    other = await startPngSource(chelsea, '127.0.0.2');
    source = await startReceiver((req, res) => {
      if (req.url === '/cross') return void res.writeHead(302, { location: `${other.origin}/cat.png` }).end();
      if (req.url === '/same') return void res.writeHead(302, { location: '/cat.png' }).end();
      servePng(res, chelsea);
    });
    presso = await buildTestApp({ env: { PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32,127.0.0.2/32' } });
  });
  after(async () => {
    await presso?.close();
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
