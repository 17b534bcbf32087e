/**
 * A whole Presso whose data directory sits on a small filesystem that the test fills to the last
 * byte (a tmpfs; CI runs as root). Before, an upload got 500, the queue's bookkeeping threw
 * "database or disk is full" where nobody caught it and the process exited, and /healthz said ok
 * until then. Now: 507 in the documented body, the process stays up, readiness reports low disk,
 * and a job accepted before the disk filled completes once space is back.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { corpus } from '../support/corpus.ts';
import {
  createAccountCli,
  type SpawnedPresso,
  spawnPresso,
  startTestPresso,
  type TestClient,
  type TestPresso,
  testClient,
} from '../support/presso.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { mountSmallFs, type SmallFs } from '../support/small-fs.ts';
import { until } from '../support/until.ts';
import { assertErrorBody, type CompletedResult, download } from './helpers.ts';

describe('a full disk', () => {
  let fs: SmallFs;
  let presso: TestPresso;
  let source: Receiver;
  let dataDir: string;
  let picture: Buffer;
  let tiny: Buffer;
  let sourceRequested!: () => void;
  const requested = new Promise<void>((resolve) => {
    sourceRequested = resolve;
  });
  let releaseSource!: () => void;
  const released = new Promise<void>((resolve) => {
    releaseSource = resolve;
  });

  before(async () => {
    // A real image whose search at the default level is ~0.1 CPU-s (chelsea.png's was ~1.2): what is
    // downloaded does not matter here, where and when it is written does.
    picture = await readFile(corpus.palettePng);
    tiny = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c33' } })
      .png()
      .toBuffer();
    // The first download is held until the test has filled the disk; later ones answer at once.
    source = await startReceiver(async (_req, res) => {
      sourceRequested();
      await released;
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': picture.length }).end(picture);
    });
    fs = await mountSmallFs(32);
    dataDir = join(fs.dir, 'data');
    presso = await startTestPresso({
      PRESSO_DATA_DIR: dataDir,
      PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32',
      PRESSO_WORKERS: '1',
      PRESSO_MIN_FREE_DISK: '4MiB',
      PRESSO_STORAGE_RETRY: '100ms',
    });
  });
  after(async () => {
    releaseSource();
    await fs?.free();
    await presso?.stop();
    await source?.close();
    await fs?.unmount();
  });

  test('uploads answer 507, readiness reports low disk, the process lives, and an accepted job completes once space is back', async () => {
    const ready = await presso.request('/healthz', { auth: false });
    assert.equal(ready.status, 200);
    const readyBody = (await ready.json()) as { status: string; disk: { freeBytes: number } };
    assert.equal(readyBody.status, 'ok');
    assert.ok(readyBody.disk.freeBytes > 4 * 1024 * 1024);

    // Accepted while there is space; its download is under way when the disk fills.
    const accepted = await presso.fetchJson({ url: `${source.origin}/cat.png`, async: true });
    assert.equal(accepted.status, 202);
    const { id } = (await accepted.json()) as { id: string };
    await requested;
    await fs.fill();
    releaseSource();
    // The runner gave up this run (its working directory is removed) and handed the job back.
    await until(() => !existsSync(join(dataDir, 'work', id)), 'the run ended');

    const upload = await presso.upload(tiny, undefined, undefined, 'tiny.png');
    const refused = await assertErrorBody(upload, 507);
    assert.equal(refused.message, 'The server is out of storage space; retry later.');

    // A fetch writes nothing but its record at submission: the full database refuses it the same way.
    const fetchRefused = await presso.fetchJson({ url: `${source.origin}/other.png`, async: true });
    await assertErrorBody(fetchRefused, 507);

    const degraded = await presso.request('/healthz', { auth: false });
    assert.equal(degraded.status, 503);
    const degradedBody = (await degraded.json()) as {
      status: string;
      reason: string;
      disk: { freeBytes: number; minFreeBytes: number };
    };
    assert.equal(degradedBody.status, 'degraded');
    assert.equal(degradedBody.reason, 'low-disk');
    assert.equal(degradedBody.disk.minFreeBytes, 4 * 1024 * 1024);
    assert.ok(degradedBody.disk.freeBytes < degradedBody.disk.minFreeBytes);
    const live = await presso.request('/livez', { auth: false });
    assert.equal(live.status, 200);
    assert.deepEqual(await live.json(), { status: 'ok' });

    const waiting = (await (await presso.request(`/1.0/jobs/${id}`)).json()) as { status: string };
    assert.notEqual(waiting.status, 'failed', 'a full disk must not fail an accepted job');
    assert.notEqual(waiting.status, 'completed');

    await fs.free();
    const done = (await presso.waitForJob(id)) as unknown as CompletedResult;
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.input.size, picture.length);
    await download(presso, done);
    assert.ok(source.requests.length >= 2, 'the download ran again');

    await until(
      async () => (await presso.request('/healthz', { auth: false })).status === 200,
      'ready again',
    );
    const after = await presso.upload(tiny, undefined, undefined, 'tiny.png');
    assert.equal(after.status, 200);
    const usage = (await (await presso.request('/1.0/account')).json()) as {
      usage: { jobs: number; bytesOut: number };
    };
    assert.equal(usage.usage.jobs, 2, 'the refused upload is not counted');
    assert.ok(usage.usage.bytesOut > 0);
  });
});

describe('a full disk under the working directory only', () => {
  let fs: SmallFs | undefined;
  let presso: TestPresso;
  let source: Receiver;

  before(async () => {
    const picture = await readFile(corpus.palettePng);
    source = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': picture.length }).end(picture);
    });
    presso = await startTestPresso({
      PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32',
      PRESSO_WORKERS: '1',
      PRESSO_JOB_MAX_ATTEMPTS: '2',
      PRESSO_STORAGE_RETRY: '50ms',
    });
    // Mounted once the server has started (start-up empties the working directory); the database
    // stays on the roomy disk, so only the job's own writes fail.
    fs = await mountSmallFs(8, join(presso.dataDir, 'work'));
  });
  after(async () => {
    await fs?.unmount();
    await presso?.stop();
    await source?.close();
  });

  test('a job that meets a full disk run after run does not use up its attempts', async () => {
    await fs!.fill();
    const accepted = await presso.fetchJson({ url: `${source.origin}/cat.png`, async: true });
    assert.equal(accepted.status, 202);
    const { id } = (await accepted.json()) as { id: string };
    // More runs than PRESSO_JOB_MAX_ATTEMPTS allows for interruptions.
    await until(() => source.requests.length >= 4, 'four runs on the full disk');
    const record = await presso.services.jobStore.get(id);
    assert.ok(record, 'the job is kept');
    assert.notEqual(record.status, 'failed', JSON.stringify(record.error));
    assert.ok(record.attempts <= 1, `attempts counted: ${record.attempts}`);

    await fs!.free();
    const done = (await presso.waitForJob(id)) as unknown as CompletedResult;
    assert.equal(done.status, 'completed', JSON.stringify(done));
    await download(presso, done);
  });
});

describe('a restart on a full disk', () => {
  let fs: SmallFs | undefined;
  const children: SpawnedPresso[] = [];
  let client: TestClient | undefined;
  after(async () => {
    await client?.close();
    for (const child of children) await child.kill('SIGKILL');
    await fs?.unmount();
  });

  test('the server starts, reports low disk, refuses uploads with 507, and is ready again once space is freed', async () => {
    fs = await mountSmallFs(32);
    const dataDir = join(fs.dir, 'data');
    const { key } = await createAccountCli(dataDir, 'full-restart');
    const env = { PRESSO_MIN_FREE_DISK: '4MiB', PRESSO_WORKERS: '1' };
    // The first start writes the TLS pair and dies (as the process did when the disk filled, before);
    // the second one meets a disk that is already full.
    const first = await spawnPresso(dataDir, env);
    children.push(first);
    await first.kill('SIGKILL');
    await fs.fill();
    const second = await spawnPresso(dataDir, env);
    children.push(second);
    client = testClient(second.url, key, second.cert);

    const degraded = await client.request('/healthz', { auth: false });
    assert.equal(degraded.status, 503);
    assert.equal(((await degraded.json()) as { reason: string }).reason, 'low-disk');
    const tiny = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3c3' } })
      .png()
      .toBuffer();
    await assertErrorBody(await client.upload(tiny, undefined, undefined, 'tiny.png'), 507);

    await fs.free();
    assert.equal((await client.request('/healthz', { auth: false })).status, 200);
    const accepted = await client.upload(tiny, undefined, undefined, 'tiny.png');
    assert.equal(accepted.status, 200, await accepted.clone().text());
    assert.equal(second.child.exitCode, null, 'the server is still running');
  });
});
