/**
 * Size limits and the asynchronous fall-backs through app.inject(): a fetched input over the maximum,
 * a synchronous request past its time-out (a fake processor held until the 202 is seen, so no timing
 * is involved), and a fetched input over the threshold.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { assertErrorBody, type CompletedResult, download } from '../api/helpers.ts';
import { corpus } from '../support/corpus.ts';
import { buildTestApp, copyInput, type TestApp } from '../support/http-app.ts';
import { type Receiver, serveBytes, startReceiver } from '../support/receiver.ts';

describe('limits and asynchronous fall-backs', () => {
  let photo: Receiver;
  let cat: Receiver;
  let chelsea: Buffer;
  let presso: TestApp;
  let release: () => void = () => {};
  let held = Promise.resolve();

  before(async () => {
    chelsea = await readFile(corpus.chelsea);
    photo = await startReceiver(serveBytes(await readFile(corpus.canonPhoto), 'image/jpeg'));
    cat = await startReceiver(serveBytes(chelsea, 'image/png'));
    // Inputs over 100 kB run asynchronously; over 400 kB they are refused.
    presso = await buildTestApp({
      env: {
        PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32',
        PRESSO_ASYNC_THRESHOLD_BYTES: '100kB',
        PRESSO_MAX_INPUT_BYTES: '400kB',
        PRESSO_SYNC_TIMEOUT: '50ms',
      },
      process: async (request) => {
        await held;
        return copyInput(request);
      },
    });
  });
  after(async () => {
    release();
    await presso?.close();
    await photo?.close();
    await cat?.close();
  });

  test('a fetched input over the maximum is 413', async () => {
    // Its own app, with the default synchronous time-out: under the 50 ms one above, a busy machine answered
    // 202 before the download reached the limit (the answer depended on the load).
    const strict = await buildTestApp({
      env: {
        PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32',
        PRESSO_ASYNC_THRESHOLD_BYTES: '100kB',
        PRESSO_MAX_INPUT_BYTES: '400kB',
      },
    });
    try {
      const response = await strict.fetchJson({ url: `${photo.origin}/photo.jpg` });
      const body = await assertErrorBody(response, 413);
      assert.match(String(body.message), /400000 bytes/);
    } finally {
      await strict.close();
    }
  });

  test('a synchronous job past the time-out is answered 202, and completes', async () => {
    held = new Promise((resolve) => {
      release = resolve;
    });
    const small = await readFile(corpus.palettePng);
    const response = await presso.upload(small, { image: { format: 'webp' } });
    assert.equal(response.status, 202);
    const ack = (await response.json()) as { id: string; status: string };
    assert.deepEqual(Object.keys(ack).sort(), ['id', 'status']);
    assert.equal(ack.status, 'processing');
    release();
    const done = (await presso.waitForJob(ack.id)) as unknown as CompletedResult;
    assert.equal(done.status, 'completed');
    assert.ok((await download(presso, done)).equals(small));
  });

  test('a fetched input over the threshold switches to 202', async () => {
    const response = await presso.fetchJson({ url: `${cat.origin}/cat.png` });
    assert.equal(response.status, 202);
    const ack = (await response.json()) as { id: string; status: string };
    const done = (await presso.waitForJob(ack.id)) as unknown as CompletedResult;
    assert.equal(done.status, 'completed');
    assert.equal(done.input.size, chelsea.length);
  });
});
