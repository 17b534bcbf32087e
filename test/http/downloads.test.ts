/** Temporary output URLs: integrity, headers, Range, conditional requests, expiry and tampering (inject). */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, mock, test } from 'node:test';
import sharp from 'sharp';
import { assertErrorBody, type CompletedResult } from '../api/helpers.ts';
import { corpus } from '../support/corpus.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';
import { decode } from '../support/images.ts';

const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');

describe('downloads', () => {
  let presso: TestApp;
  let result: CompletedResult;
  let full: Buffer;

  before(async () => {
    presso = await buildTestApp();
    // The fake processor hands the input back: a JPEG in gives a JPEG link.
    const jpeg = await sharp(corpus.astronaut).jpeg({ quality: 90 }).toBuffer();
    const response = await presso.upload(jpeg, undefined, undefined, 'astronaut.jpeg');
    assert.equal(response.status, 200);
    result = (await response.json()) as CompletedResult;
  });
  after(() => presso?.close());

  test('the bytes match output.sha1, with type, length, disposition and ETag, and no key is needed', async () => {
    const response = await presso.get(result.url);
    assert.equal(response.status, 200);
    full = Buffer.from(await response.arrayBuffer());
    assert.equal(sha1(full), result.output.sha1);
    assert.equal(full.length, result.output.size);
    assert.equal(response.headers.get('content-type'), 'image/jpeg');
    assert.equal(response.headers.get('content-length'), String(full.length));
    assert.equal(response.headers.get('etag'), `"${result.output.sha1}"`);
    assert.equal(response.headers.get('accept-ranges'), 'bytes');
    assert.match(
      response.headers.get('content-disposition') ?? '',
      /^attachment; filename="astronaut\.jpeg"/,
    );
    const decoded = await decode(full);
    assert.equal(decoded.format, 'jpeg');
    assert.deepEqual([decoded.width, decoded.height], [512, 512]);
  });

  test('a Range request is 206 with exactly that slice', async () => {
    const response = await presso.get(result.url, { range: 'bytes=100-1099' });
    assert.equal(response.status, 206);
    assert.equal(response.headers.get('content-range'), `bytes 100-1099/${result.output.size}`);
    assert.equal(response.headers.get('content-length'), '1000');
    const slice = Buffer.from(await response.arrayBuffer());
    assert.deepEqual(slice, full.subarray(100, 1100));

    const suffix = await presso.get(result.url, { range: 'bytes=-64' });
    assert.equal(suffix.status, 206);
    assert.deepEqual(Buffer.from(await suffix.arrayBuffer()), full.subarray(full.length - 64));

    const open = await presso.get(result.url, { range: `bytes=${full.length - 10}-` });
    assert.equal(open.status, 206);
    assert.deepEqual(Buffer.from(await open.arrayBuffer()), full.subarray(full.length - 10));
  });

  test('a range past the end is 416', async () => {
    const response = await presso.get(result.url, { range: `bytes=${full.length + 10}-` });
    assert.equal(response.status, 416);
    assert.equal(response.headers.get('content-range'), `bytes */${full.length}`);
    await response.arrayBuffer();
  });

  test('If-None-Match with the ETag is 304 without a body', async () => {
    const response = await presso.get(result.url, { 'if-none-match': `"${result.output.sha1}"` });
    assert.equal(response.status, 304);
    assert.equal((await response.arrayBuffer()).byteLength, 0);
    const other = await presso.get(result.url, { 'if-none-match': '"something-else"' });
    assert.equal(other.status, 200);
    await other.arrayBuffer();
  });

  test('HEAD answers the headers without the body', async () => {
    const response = await presso.request(result.url, { method: 'HEAD', auth: false });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-length'), String(result.output.size));
    assert.equal(response.headers.get('etag'), `"${result.output.sha1}"`);
    assert.equal((await response.arrayBuffer()).byteLength, 0);
  });

  test('a non-ASCII file name survives the link and the Content-Disposition', async () => {
    const upload = await presso.upload(corpus.chelsea, undefined, undefined, 'chat été.png');
    assert.equal(upload.status, 200);
    const named = (await upload.json()) as CompletedResult;
    assert.equal(named.output.name, 'chat été.png');
    assert.ok(named.url.endsWith(`/${encodeURIComponent('chat été.png')}`), named.url);
    const response = await presso.get(named.url);
    assert.equal(response.status, 200);
    const disposition = response.headers.get('content-disposition') ?? '';
    assert.ok(disposition.includes(`filename*=UTF-8''${encodeURIComponent('chat été.png')}`), disposition);
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.equal(sha1(bytes), named.output.sha1);
    assert.deepEqual([(await decode(bytes)).width, (await decode(bytes)).height], [451, 300]);
  });

  test('a tampered expiry, name or job id is 404', async () => {
    const url = new URL(result.url);
    const [, expiry, jobId, name] = url.pathname.split('/') as [string, string, string, string];
    const variants = [
      `/${Number(expiry) + 3600}/${jobId}/${name}`,
      `/${Number(expiry) - 1}/${jobId}/${name}`,
      `/${expiry}/${jobId}/other.jpeg`,
      `/${expiry}/${jobId}/astronaut.png`,
      `/${expiry}/${randomUUID()}/${name}`,
    ];
    for (const path of variants) {
      const response = await presso.get(`${url.origin}${path}`);
      await assertErrorBody(response, 404);
    }
  });
});

describe('downloads: expiry', () => {
  let presso: TestApp;
  before(async () => {
    presso = await buildTestApp({ env: { PRESSO_OUTPUT_TTL: '1h' } });
  });
  after(async () => {
    mock.timers.reset();
    await presso?.close();
  });

  test('a link works until its expiry and is 410 after it', async () => {
    const sent = Date.now();
    const response = await presso.upload(corpus.chelsea);
    const answered = Date.now();
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult;
    const expiry = Number(new URL(result.url).pathname.split('/')[1]);
    // Bounded by the clock read around the request, however long it took: the link's time is whole seconds.
    const ttl = 3_600_000;
    assert.ok(
      expiry * 1000 >= Math.floor((sent + ttl) / 1000) * 1000 && expiry * 1000 <= answered + ttl + 1000,
      'the link expires one TTL after the job completed',
    );
    // The clock is moved, not waited for.
    mock.timers.enable({ apis: ['Date'], now: (expiry - 1) * 1000 });
    const before = await presso.get(result.url);
    assert.equal(before.status, 200);
    await before.arrayBuffer();
    mock.timers.setTime((expiry + 1) * 1000);
    const body = await assertErrorBody(await presso.get(result.url), 410);
    assert.match(String(body.message), /expired/);
  });
});
