/**
 * Asynchronous jobs through app.inject(): the size threshold and "async": true answer 202, polling
 * GET /1.0/jobs/{id}, the failed record, job isolation between accounts, and a job still in the queue.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { UnprocessableInputError } from '../../src/errors/catalog.ts';
import { assertErrorBody, type CompletedResult, download, UUID } from '../api/helpers.ts';
import { corpus } from '../support/corpus.ts';
import { buildTestApp, copyInput, type TestApp } from '../support/http-app.ts';
import { bearer } from '../support/presso.ts';
import { serveBytes, startReceiver } from '../support/receiver.ts';

describe('asynchronous jobs', () => {
  let presso: TestApp;
  before(async () => {
    presso = await buildTestApp({
      // A small threshold stands in for the 32 MB default: the rule is the same, the test stays cheap.
      env: { PRESSO_ASYNC_THRESHOLD_BYTES: '64KiB', PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32' },
      process: async (request) => {
        if (request.input.name === 'refused.png') throw new UnprocessableInputError('The image is refused.');
        return copyInput(request);
      },
    });
  });
  after(() => presso?.close());

  test('an input over the threshold is acknowledged with 202 and completes by polling', async () => {
    const bytes = await readFile(corpus.chelsea);
    assert.ok(bytes.length > 64 * 1024);
    const response = await presso.upload(bytes, undefined, undefined, 'big.png');
    assert.equal(response.status, 202);
    const ack = (await response.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(ack).sort(), ['id', 'status']);
    assert.match(String(ack.id), UUID);
    assert.equal(ack.status, 'enqueued');
    const done = (await presso.waitForJob(String(ack.id))) as unknown as CompletedResult;
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.id, ack.id);
    assert.equal(done.input.size, bytes.length);
    assert.equal(done.input.format, 'png');
    assert.match(done.url, new RegExp(`/${ack.id}/big\\.png$`));
    assert.ok((await download(presso, done)).equals(bytes));
  });

  test('"async": true answers 202 for a small file, and the job completes', async () => {
    const small = Buffer.from(await readFile(corpus.animatedGif));
    const response = await presso.upload(small, { async: true }, undefined, 'small.gif');
    assert.equal(response.status, 202);
    const ack = (await response.json()) as { id: string; status: string };
    assert.equal(ack.status, 'enqueued');
    const done = (await presso.waitForJob(ack.id)) as unknown as CompletedResult;
    assert.equal(done.status, 'completed');
    assert.ok((await download(presso, done)).equals(small));
  });

  test('"async": true on fetch answers 202 too', async () => {
    const bytes = await readFile(corpus.animatedGif);
    const source = await startReceiver(serveBytes(bytes, 'image/gif'));
    try {
      const response = await presso.fetchJson({ url: `${source.origin}/c.gif`, async: true });
      assert.equal(response.status, 202);
      const ack = (await response.json()) as { id: string; status: string };
      assert.equal(ack.status, 'enqueued');
      const done = (await presso.waitForJob(ack.id)) as unknown as CompletedResult;
      assert.equal(done.status, 'completed');
      assert.equal(done.input.size, bytes.length);
    } finally {
      await source.close();
    }
  });

  for (const [name, file, fileName, message] of [
    ['a file of no supported kind', Buffer.from('plain text is no image'), 'a.txt', /./],
    ['an input the processor refuses', undefined, 'refused.png', /The image is refused\./],
  ] as const) {
    test(`a failed job has the failed record shape (${name})`, async () => {
      const bytes = file ?? (await readFile(corpus.palettePng));
      const response = await presso.upload(bytes, { async: true }, undefined, fileName);
      assert.equal(response.status, 202);
      const { id } = (await response.json()) as { id: string };
      const failed = await presso.waitForJob(id);
      assert.deepEqual(Object.keys(failed).sort(), ['id', 'message', 'status', 'success']);
      assert.equal(failed.success, false);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.id, id);
      assert.match(String(failed.message), message);
    });
  }

  test("another account's job is 404, as is an unknown id", async () => {
    const response = await presso.upload(await readFile(corpus.palettePng), { async: true });
    const { id } = (await response.json()) as { id: string };
    await presso.waitForJob(id);
    const other = await presso.createAccount('someone-else');
    const body = await assertErrorBody(
      await presso.request(`/1.0/jobs/${id}`, { auth: bearer(other.key) }),
      404,
    );
    assert.doesNotMatch(JSON.stringify(body), new RegExp(presso.account.id));
    await assertErrorBody(await presso.request('/1.0/jobs/3f0c1a52-7d55-4c1e-9d7b-0a6f1f2b9e11'), 404);
    await assertErrorBody(await presso.request('/1.0/jobs/not-a-uuid'), 404);
    // The owner still sees it.
    assert.equal((await presso.request(`/1.0/jobs/${id}`)).status, 200);
  });
});

describe('a job waiting in the queue', () => {
  let presso: TestApp;
  before(async () => {
    // No workers: jobs stay enqueued, so the running record can be observed deterministically.
    presso = await buildTestApp({ env: { PRESSO_WORKERS: '0' } });
  });
  after(() => presso?.close());

  test('is only {id, status: enqueued}, with a Retry-After header', async () => {
    const response = await presso.upload(corpus.chelsea, { async: true });
    assert.equal(response.status, 202);
    const { id } = (await response.json()) as { id: string };
    const polled = await presso.request(`/1.0/jobs/${id.toUpperCase()}`);
    assert.equal(polled.status, 200);
    assert.deepEqual(await polled.json(), { id, status: 'enqueued' });
    assert.equal(polled.headers.get('retry-after'), '1');
  });
});
