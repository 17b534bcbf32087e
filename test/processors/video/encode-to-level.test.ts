/**
 * The CRF searched on a proxy, then checked at full size: the output (a part up to WHOLE_CHECK_SECONDS) or
 * the sampled segments at the chosen CRF (a longer one) meet both of the level's targets, scored
 * independently here against the source; the output keeps the clip's length and frame size, and the same
 * request gives the same bytes again (sha256).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { DEFAULT_VIDEO_LIMITS, videoDecodeBounds } from '../../../src/processors/video/config.ts';
import { encodeToLevel, WHOLE_CHECK_SECONDS } from '../../../src/processors/video/encode-to-level.ts';
import {
  proxyFrame,
  SEGMENTS,
  SSIM_TARGET_DB,
  SSIMULACRA2_TARGET,
  searchCrf,
  segmentStarts,
} from '../../../src/processors/video/quality-search.ts';
import { duration, makeClips, once, probe, videoStream } from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-encode-to-level-');

/** Mean SSIM in dB of every frame of `output` against `source`, paired by index. */
function ssimDb(output: string, source: string): number {
  const run = spawnSync('ffmpeg', [
    ...['-nostdin', '-hide_banner', '-i', output, '-i', source, '-lavfi'],
    ...['[0:v]setpts=N/TB[a];[1:v]format=yuv420p,setpts=N/TB[b];[a][b]ssim=shortest=1', '-f', 'null', '-'],
  ]);
  const ssim = Number(/All:([\d.]+)/.exec(run.stderr.toString())?.[1]);
  return -10 * Math.log10(1 - ssim);
}

it('sizes the proxy to at most 160,000 pixels by a whole factor, even sides', () => {
  assert.deepEqual(proxyFrame(1920, 1080), { width: 480, height: 270, factor: 4 });
  assert.deepEqual(proxyFrame(1280, 720), { width: 426, height: 240, factor: 3 });
  assert.deepEqual(proxyFrame(320, 240), { width: 320, height: 240, factor: 1 });
});

// Whole-output checks (2 s: the whole part searched; 4 s: sampled segments searched) and a segment check
// (10 s, past WHOLE_CHECK_SECONDS). 480×360 is past PROXY_PIXELS, so the search runs on a half-size proxy
// and the full-size check is the one that counts. Small frames' determinism under load has its own test
// (determinism.test.ts).
const CLIPS = [
  [2, 480, 360],
  [4, 480, 360],
  [10, 480, 360],
] as const;
// The three clips from one ffmpeg run (one start, one pattern generated): the first 2, 4 and 10 s of it.
const clipPaths = once(() => {
  // A high-quality source (CRF 12) made fast: x264's `veryfast` costs a fifth of its default here.
  const encode = ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '12', '-pix_fmt', 'yuv420p'];
  const outputs = CLIPS.map(
    ([seconds]) =>
      [join(scratch(), `clip-${seconds}.mp4`), [...encode, '-t', String(seconds)]] as [string, string[]],
  );
  // 5 frames a second (a camera's or a time-lapse's rate): the property is the frame size and the parts'
  // lengths, which choose the branches (windows are in seconds), not the rate; five times fewer frames to
  // encode, decode and score than 25 (every step of the search and the check scales with them), and every
  // frame of the output is still scored against the source here.
  makeClips(outputs, { seconds: 10, width: 480, height: 360, fps: 5, audio: false });
  return outputs.map(([path]) => path);
});
for (const [index, [seconds, width, height]] of CLIPS.entries()) {
  it(`meets the level at full size on a ${seconds} s clip at ${width}×${height}, the same bytes twice`, async () => {
    assert.equal(seconds <= WHOLE_CHECK_SECONDS, seconds < 10);
    assert.equal(segmentStarts(0, seconds).length, seconds === 2 ? 1 : SEGMENTS);
    assert.equal(proxyFrame(width, height).factor, 2);
    const clip = clipPaths()[index] ?? '';
    const hashes: string[] = [];
    for (const attempt of [0, 1]) {
      const workDir = await mkdtemp(join(scratch(), `work-${seconds}-${attempt}-`));
      const run = {
        deadline: new Deadline(30 * 60_000),
        signal: new AbortController().signal,
        workDir,
        inputs: [clip],
        bounds: videoDecodeBounds(DEFAULT_VIDEO_LIMITS),
      };
      const input = {
        ...{ path: clip, format: 'mp4', start: 0, duration: seconds, filters: 'setsar=1,format=yuv420p' },
        ...{ codec: 'h264' as const, level: 'high' as const, width, height },
      };
      const { crf } = await searchCrf(input, run);
      const output = join(workDir, 'out.mp4');
      const plan = {
        ...{ inputPath: clip, inputFormat: 'mp4', start: 0, duration: undefined, filters: ['setsar=1'] },
        ...{ outputPixels: width * height, format: 'mp4' as const, codec: 'h264' as const, crf, output },
        audio: { kind: 'none' as const },
      };
      const result = await encodeToLevel(plan, input, run, {});
      const last = result.tries.at(-1);
      assert.ok(last !== undefined && last.crf === result.crf, JSON.stringify(result));
      assert.ok(
        last.db >= SSIM_TARGET_DB.high && last.ssimulacra2 >= SSIMULACRA2_TARGET.high,
        JSON.stringify(result),
      );
      hashes.push(
        createHash('sha256')
          .update(await readFile(output))
          .digest('hex'),
      );
      // The output is judged once: the second attempt's must be the same bytes (below), so its SSIM,
      // frame size and length are the first one's (each was an ffmpeg decode of the whole clip).
      if (attempt === 1) continue;
      // Scored here on its own: every frame of the output against the source.
      const db = ssimDb(output, clip);
      assert.ok(db >= SSIM_TARGET_DB.high, String(db));
      const video = videoStream(probe(output));
      assert.equal(video?.width, width);
      assert.equal(video?.height, height);
      const length = duration(output);
      assert.ok(Math.abs(length - seconds) < 0.1, String(length));
    }
    assert.equal(hashes[0], hashes[1], 'the same request gives the same bytes');
  });
}
