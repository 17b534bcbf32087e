/** Size limits and the asynchronous fall-backs: 413, the synchronous time-out, a fetched input over the threshold. */
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { FormData } from 'undici';
import { corpus } from '../support/corpus.ts';
import { decode } from '../support/images.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { type Receiver, serveBytes, startReceiver } from '../support/receiver.ts';
import { assertErrorBody, type CompletedResult, download } from './helpers.ts';

describe('limits', () => {
  let source: Receiver;
  let small: TestPresso;
  let photoSize: number;

  before(async () => {
    const photo = await readFile(corpus.canonPhoto);
    photoSize = photo.length;
    source = await startReceiver(serveBytes(photo, 'image/jpeg'));
    // Inputs over 100 kB run asynchronously; over 400 kB they are refused.
    small = await startTestPresso({
      PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32',
      PRESSO_ASYNC_THRESHOLD_BYTES: '100kB',
      PRESSO_MAX_INPUT_BYTES: '400kB',
    });
  });
  after(async () => {
    await small?.stop();
    await source?.close();
  });

  test('an upload over the maximum is 413, and the connection stays usable', async () => {
    assert.ok(photoSize > 400_000);
    const response = await small.upload(corpus.canonPhoto, { image: { compression: 'high' } });
    const body = await assertErrorBody(response, 413);
    assert.match(String(body.message), /400000 bytes/);
    // The next request on the same client works.
    const next = await small.request('/1.0/account');
    assert.equal(next.status, 200);
    await next.arrayBuffer();
  });

  test('a too-large file followed by more file parts is 413, and the next requests still work', async () => {
    const form = new FormData();
    form.append('file', new Blob([await readFile(corpus.canonPhoto)]), 'big.jpg');
    form.append('extra', new Blob([await readFile(corpus.chelsea)]), 'extra.png');
    form.append('data', '{}');
    const response = await small.request('/1.0/upload', { method: 'POST', body: form });
    await assertErrorBody(response, 413);
    for (let i = 0; i < 3; i++) {
      const next = await small.upload(corpus.palettePng);
      assert.equal(next.status, 200);
      const result = (await next.json()) as CompletedResult;
      assert.equal(result.input.format, 'png');
    }
  });

  test('an upload over the threshold is 202 and completes', async () => {
    const { size } = await stat(corpus.chelsea);
    assert.ok(size > 100_000 && size < 400_000, `${size}`);
    const response = await small.upload(corpus.chelsea);
    assert.equal(response.status, 202);
    const ack = (await response.json()) as { id: string; status: string };
    assert.equal(ack.status, 'enqueued');
    const done = (await small.waitForJob(ack.id)) as unknown as CompletedResult;
    assert.equal(done.status, 'completed');
    const decoded = await decode(await download(small, done));
    assert.deepEqual([decoded.width, decoded.height], [451, 300]);
  });

  test('a fetched input over the maximum is 413', async () => {
    const response = await small.fetchJson({ url: `${source.origin}/photo.jpg` });
    await assertErrorBody(response, 413);
  });
});

describe('asynchronous fall-backs', () => {
  let source: Receiver;
  let presso: TestPresso;
  let chelsea: Buffer;

  before(async () => {
    chelsea = await readFile(corpus.chelsea);
    source = await startReceiver(serveBytes(chelsea, 'image/png'));
    presso = await startTestPresso({
      PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32',
      PRESSO_ASYNC_THRESHOLD_BYTES: '100kB',
      PRESSO_SYNC_TIMEOUT: '1ms',
    });
  });
  after(async () => {
    await presso?.stop();
    await source?.close();
  });

  test('a synchronous job past the time-out is answered 202 processing, and completes', async () => {
    const response = await presso.upload(corpus.palettePng, { image: { format: 'webp' } });
    assert.equal(response.status, 202);
    const ack = (await response.json()) as { id: string; status: string };
    assert.deepEqual(Object.keys(ack).sort(), ['id', 'status']);
    assert.ok(['enqueued', 'processing'].includes(ack.status), ack.status);
    const done = (await presso.waitForJob(ack.id)) as unknown as CompletedResult;
    assert.equal(done.status, 'completed');
    assert.equal((await decode(await download(presso, done))).format, 'webp');
  });

  test('a fetched input over the threshold switches to 202', async () => {
    const response = await presso.fetchJson({ url: `${source.origin}/cat.png` });
    assert.equal(response.status, 202);
    const ack = (await response.json()) as { id: string; status: string };
    const done = (await presso.waitForJob(ack.id)) as unknown as CompletedResult;
    assert.equal(done.status, 'completed');
    assert.equal(done.input.size, chelsea.length);
    const decoded = await decode(await download(presso, done));
    assert.deepEqual([decoded.width, decoded.height], [451, 300]);
  });
});
