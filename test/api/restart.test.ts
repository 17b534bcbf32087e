/**
 * Crash safety: the server runs as a child process (`presso serve`), is SIGKILLed while one job is
 * processing and another is enqueued, and started again on the same data directory: both complete.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import sharp from 'sharp';
import { corpus } from '../support/corpus.ts';
import { decode, ssim } from '../support/images.ts';
import {
  createAccountCli,
  type SpawnedPresso,
  sleep,
  spawnPresso,
  type TestClient,
  testClient,
} from '../support/presso.ts';
import { type CompletedResult, download } from './helpers.ts';

describe('restart after a crash', () => {
  const children: SpawnedPresso[] = [];
  const clients: TestClient[] = [];
  const dirs: string[] = [];

  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    for (const child of children) await child.kill('SIGKILL');
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  test('jobs enqueued or processing when the server is killed complete after a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'presso-crash-'));
    dirs.push(dataDir);
    const { key } = await createAccountCli(dataDir, 'crash-test');

    // One worker: the AVIF conversion of a 3 MP photo (seconds: a quality search of several encodes)
    // keeps it busy while the second job waits. The 12 MP original cost ~20 s of CPU twice.
    const photo = join(dataDir, 'photo-3mp.jpg');
    await sharp(corpus.gpsPhoto).resize(2000, 1500).jpeg({ quality: 92 }).toFile(photo);
    const first = await spawnPresso(dataDir, { PRESSO_WORKERS: '1' });
    children.push(first);
    const client1 = testClient(first.url, key, first.cert);
    clients.push(client1);
    const slow = await client1.upload(photo, { async: true, image: { format: 'avif' } });
    assert.equal(slow.status, 202);
    const slowId = ((await slow.json()) as { id: string }).id;
    const waiting = await client1.upload(corpus.chelsea, { async: true, image: { resize: { width: 150 } } });
    assert.equal(waiting.status, 202);
    const waitingId = ((await waiting.json()) as { id: string }).id;

    // Kill only once the slow job is really being processed (the bound only guards against a hang).
    for (let polls = 0; ; polls++) {
      const response = await client1.request(`/1.0/jobs/${slowId}`);
      const { status } = (await response.json()) as { status: string };
      if (status === 'processing') break;
      assert.equal(status, 'enqueued', 'the slow job must not finish before the kill');
      assert.ok(polls < 1200, 'the slow job never started');
      await sleep(50);
    }
    const other = (await (await client1.request(`/1.0/jobs/${waitingId}`)).json()) as { status: string };
    assert.equal(other.status, 'enqueued');
    await client1.close();
    await first.kill('SIGKILL');
    assert.equal(first.child.signalCode, 'SIGKILL');

    const second = await spawnPresso(dataDir);
    children.push(second);
    // A new client without pooled connections: nothing can be reused from before the kill.
    const client2 = testClient(second.url, key, second.cert, { keepAlive: false });
    clients.push(client2);

    const waited = (await client2.waitForJob(waitingId)) as unknown as CompletedResult;
    assert.equal(waited.status, 'completed', JSON.stringify(waited));
    const small = await decode(await download(client2, waited));
    assert.deepEqual([small.width, small.height], [150, Math.round((300 * 150) / 451)]);

    const done = (await client2.waitForJob(slowId)) as unknown as CompletedResult;
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.output.format, 'avif');
    assert.ok(done.url.startsWith(`${second.url}/`), 'the link points at the running server');
    const output = await download(client2, done);
    const decoded = await decode(output);
    assert.equal(decoded.format, 'heif');
    assert.deepEqual([decoded.width, decoded.height], [2000, 1500]);
    assert.ok((await ssim(output, photo)) > 0.85);
  });
});
