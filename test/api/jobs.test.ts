/** Asynchronous jobs: the 32 MB switch, "async": true, polling GET /1.0/jobs/{id}, and job isolation. */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { corpus } from '../support/corpus.ts';
import { decode, ssim } from '../support/images.ts';
import { bearer, startTestPresso, type TestPresso } from '../support/presso.ts';
import { serveBytes, startReceiver } from '../support/receiver.ts';
import { assertErrorBody, type CompletedResult, download, UUID } from './helpers.ts';

const MiB = 1024 * 1024;

describe('asynchronous jobs', () => {
  let presso: TestPresso;
  let dir: string;
  let bigTiff: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'presso-big-'));
    // A real photo, upscaled and stored as an uncompressed TIFF: over 32 MB, cheap to re-encode.
    bigTiff = join(dir, 'big.tiff');
    await sharp(corpus.canonPhoto).resize(4000, 3000).tiff({ compression: 'none' }).toFile(bigTiff);
    presso = await startTestPresso({ PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32' });
  });
  after(async () => {
    await presso?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('an input over 32 MB is acknowledged with 202 and completes by polling', async () => {
    const { size } = await stat(bigTiff);
    assert.ok(size > 32 * MiB, `${size} bytes`);
    const response = await presso.upload(bigTiff);
    assert.equal(response.status, 202);
    const ack = (await response.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(ack).sort(), ['id', 'status']);
    assert.match(String(ack.id), UUID);
    assert.equal(ack.status, 'enqueued');

    // While the job runs the record is only {id, status}, with a Retry-After to respect.
    const first = await presso.request(`/1.0/jobs/${ack.id}`);
    assert.equal(first.status, 200);
    const running = (await first.json()) as Record<string, unknown>;
    if (running.status === 'enqueued' || running.status === 'processing') {
      assert.deepEqual(Object.keys(running).sort(), ['id', 'status']);
      assert.ok(Number(first.headers.get('retry-after')) >= 1);
    }

    const done = (await presso.waitForJob(String(ack.id))) as unknown as CompletedResult;
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.id, ack.id);
    assert.equal(done.input.size, size);
    assert.equal(done.input.format, 'tiff');
    assert.equal(done.output.format, 'tiff');
    assert.ok(done.output.size < size);
    assert.match(done.url, new RegExp(`/${ack.id}/big\\.tiff$`));
    const output = await download(presso, done);
    const decoded = await decode(output);
    assert.deepEqual([decoded.width, decoded.height], [4000, 3000]);
    assert.ok((await ssim(output, bigTiff)) > 0.9);
  });

  test('"async": true answers 202 for a small file, and the job completes', async () => {
    const response = await presso.upload(corpus.chelsea, { async: true, image: { resize: { width: 100 } } });
    assert.equal(response.status, 202);
    const ack = (await response.json()) as { id: string; status: string };
    assert.equal(ack.status, 'enqueued');
    const done = (await presso.waitForJob(ack.id)) as unknown as CompletedResult;
    assert.equal(done.status, 'completed');
    const decoded = await decode(await download(presso, done));
    assert.deepEqual([decoded.width, decoded.height], [100, Math.round((300 * 100) / 451)]);
  });

  test('"async": true on fetch answers 202 too', async () => {
    const bytes = await readFile(corpus.chelsea);
    const source = await startReceiver(serveBytes(bytes, 'image/png'));
    try {
      const response = await presso.fetchJson({ url: `${source.origin}/c.png`, async: true });
      assert.equal(response.status, 202);
      const ack = (await response.json()) as { id: string; status: string };
      assert.equal(ack.status, 'enqueued');
      const done = (await presso.waitForJob(ack.id)) as unknown as CompletedResult;
      assert.equal(done.status, 'completed');
      assert.equal(done.input.size, bytes.length);
      const decoded = await decode(await download(presso, done));
      assert.deepEqual([decoded.width, decoded.height], [451, 300]);
    } finally {
      await source.close();
    }
  });

  test('a failed job has the failed record shape', async () => {
    const response = await presso.upload(
      Buffer.from('plain text is no image'),
      { async: true },
      undefined,
      'a.txt',
    );
    assert.equal(response.status, 202);
    const { id } = (await response.json()) as { id: string };
    const failed = await presso.waitForJob(id);
    assert.deepEqual(Object.keys(failed).sort(), ['id', 'message', 'status', 'success']);
    assert.equal(failed.success, false);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.id, id);
    assert.ok(String(failed.message).length > 0);
  });

  test("another account's job is 404, as is an unknown id", async () => {
    const response = await presso.upload(corpus.chelsea, { async: true });
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
  let presso: TestPresso;
  before(async () => {
    // No workers: jobs stay enqueued, so the running record can be observed deterministically.
    presso = await startTestPresso({ PRESSO_WORKERS: '0' });
  });
  after(() => presso?.stop());

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
