/**
 * Finding 9 of issue 21: one account could starve the others. The queue was one FIFO per lane, so another
 * account's 32×32 PNG waited behind every job of a flood (19.7 minutes in the audit). Now the accounts with
 * waiting work take turns: once the second account's job is queued, at most one job of the first account
 * starts before it. Counted in jobs, in the order they started, on one real server whose single worker both
 * accounts share. And a tiny file no longer buys a kind's whole time budget (a 98 KB MKV of three 8K frames
 * held the media worker 11 minutes): it gets what its size and declared work earn, counted, not timed.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { earnedTimeMs } from '../../src/processors/shared/time-budget.ts';
import { DEFAULT_VIDEO_LIMITS, VIDEO_TIME_EARNED } from '../../src/processors/video/config.ts';
import { decode } from '../support/images.ts';
import { ffmpeg } from '../support/media.ts';
import { startTestPresso, type TestClient, type TestPresso, testClient } from '../support/presso.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { scaledMs } from '../support/time-scale.ts';
import { until } from '../support/until.ts';

const FLOOD = 8;

const noisePng = (size: number) =>
  sharp({
    create: {
      width: size,
      height: size,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer();

async function acceptedId(response: Awaited<ReturnType<TestClient['upload']>>): Promise<string> {
  const body = (await response.json()) as { id?: string };
  assert.equal(response.status, 202, JSON.stringify(body));
  return String(body.id);
}

describe('fair sharing between accounts (issue 21, finding 9)', () => {
  let presso: TestPresso;
  let second: TestClient;
  let source: Receiver;
  let releaseSource!: () => void;
  const sourceReleased = new Promise<void>((resolve) => {
    releaseSource = resolve;
  });

  before(async () => {
    const png = await noisePng(64);
    // Holds its answer until the test lets it go: the first account's first job keeps the only worker busy,
    // as a job running to its budget does, while both accounts queue their work behind it.
    source = await startReceiver(async (_req, res) => {
      await sourceReleased;
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
    });
    presso = await startTestPresso({ PRESSO_WORKERS: '1', PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32' });
    const other = await presso.createAccount('second');
    second = testClient(presso.url, other.key, presso.presso.tls?.cert);
  });
  after(async () => {
    releaseSource();
    await second?.close();
    await presso?.stop();
    await source?.close();
  });

  test('while one account floods the workers, another account’s small PNG starts after at most one more of its jobs', async () => {
    const blocker = await acceptedId(
      await presso.fetchJson({ url: `${source.origin}/slow.png`, async: true }),
    );
    await source.waitFor(1); // the worker is inside the blocking job
    const flood: string[] = [];
    const photo = await noisePng(256);
    for (let i = 0; i < FLOOD; i++) {
      flood.push(
        await acceptedId(await presso.upload(photo, { async: true, image: { compression: 'high' } })),
      );
    }
    const small = await noisePng(32);
    const mine = await acceptedId(await second.upload(small, { async: true }));

    // The order jobs start in: each job's first change is its start (nothing else touches a waiting job).
    const started: string[] = [];
    const watches = await Promise.all(
      [...flood, mine].map(async (id) => {
        const watch = await presso.services.events.watch(id);
        void watch.next(scaledMs(600_000)).then((changed) => {
          if (changed) started.push(id);
        });
        return watch;
      }),
    );
    try {
      releaseSource();
      const done = await second.waitForJob(mine);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      await until(() => started.includes(mine), 'the small PNG’s start to be seen');
      const floodBefore = started.slice(0, started.indexOf(mine));
      assert.ok(
        floodBefore.length <= 1,
        `the small PNG waited for ${floodBefore.length} of the flood's ${FLOOD} jobs`,
      );
      // And it was processed, not just answered: the output is the same 32×32 picture.
      const output = Buffer.from(await (await second.get(String(done.url))).arrayBuffer());
      const decoded = await decode(output);
      assert.deepEqual([decoded.width, decoded.height], [32, 32]);
      assert.equal((await presso.waitForJob(blocker)).status, 'completed');
    } finally {
      for (const watch of watches) watch.close();
    }
  });
});

describe('a tiny video cannot buy the video hour (issue 21, finding 9)', () => {
  let presso: TestPresso;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'presso-earned-'));
    // No floor, so the budget is what the file's bytes earn alone (the default floor adds 30 s).
    presso = await startTestPresso({ PRESSO_VIDEO_TIME_FLOOR: '0s' });
  });
  after(async () => {
    await presso?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('an MKV of three 8K frames in a few KB is refused at the budget its size earned, not run for minutes', async () => {
    const mkv = join(dir, 'three-8k.mkv');
    ffmpeg([
      ...['-f', 'lavfi', '-i', 'color=c=gray:size=7680x4320:rate=1:duration=3'],
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', mkv],
    ]);
    const bytes = await readFile(mkv);
    // Counted from its size (the frames it declares would earn far more): under a second.
    const limits = { ...DEFAULT_VIDEO_LIMITS, timeFloorMs: 0 };
    const budget = earnedTimeMs(limits, VIDEO_TIME_EARNED, { bytes: bytes.length });
    assert.ok(budget < 1000, `${budget} ms`);
    const response = await presso.upload(bytes, undefined, undefined, 'three-8k.mkv');
    const body = (await response.json()) as { message?: string };
    assert.equal(response.status, 422, JSON.stringify(body));
    assert.match(String(body.message), new RegExp(`time budget of ${budget / 1000} s`));
  });
});
