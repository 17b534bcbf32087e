/**
 * The CRF searched on a proxy, then checked at full size: the output (a short part) or the sampled segments
 * at the chosen CRF (a longer one) meet both of the level's targets, scored independently here against the
 * source, and the same request gives the same bytes again.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { DEFAULT_VIDEO_LIMITS, videoDecodeBounds } from '../../../src/processors/video/config.ts';
import { encodeToLevel } from '../../../src/processors/video/encode-to-level.ts';
import {
  proxyFrame,
  SSIM_TARGET_DB,
  SSIMULACRA2_TARGET,
  searchCrf,
} from '../../../src/processors/video/quality-search.ts';
import { makeClip } from '../../support/media.ts';
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

for (const seconds of [2, 5]) {
  it(`meets the level at full size on a ${seconds} s clip at 640×480, the same bytes twice`, async () => {
    const clip = makeClip(join(scratch(), `clip-${seconds}.mp4`), {
      seconds,
      width: 640,
      height: 480,
      audio: false,
    });
    const outputs: Buffer[] = [];
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
        ...{ codec: 'h264' as const, level: 'high' as const, width: 640, height: 480 },
      };
      const { crf } = await searchCrf(input, run);
      const output = join(workDir, 'out.mp4');
      const plan = {
        ...{ inputPath: clip, inputFormat: 'mp4', start: 0, duration: undefined, filters: ['setsar=1'] },
        ...{ outputPixels: 640 * 480, format: 'mp4' as const, codec: 'h264' as const, crf, output },
        audio: { kind: 'none' as const },
      };
      const result = await encodeToLevel(plan, input, run, {});
      const last = result.tries.at(-1);
      assert.ok(last !== undefined && last.crf === result.crf, JSON.stringify(result));
      assert.ok(
        last.db >= SSIM_TARGET_DB.high && last.ssimulacra2 >= SSIMULACRA2_TARGET.high,
        JSON.stringify(result),
      );
      // Scored here on its own: every frame of the output against the source.
      assert.ok(ssimDb(output, clip) >= SSIM_TARGET_DB.high, String(ssimDb(output, clip)));
      outputs.push(await readFile(output));
    }
    assert.ok(outputs[0]?.equals(outputs[1] ?? Buffer.alloc(0)), 'the same request gives the same bytes');
  });
}
