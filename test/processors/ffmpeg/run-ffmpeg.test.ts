/**
 * Each ffmpeg run's bounds follow the declared limits (src/processors/ffmpeg/decode-bounds.ts,
 * tool-memory.ts): a frame of exactly the frame limit decodes and a larger one is a 422; the memory figures
 * are enough for an honest encode with every encoder, and a run that needs more than its limit is a 422 that
 * says so, not a host short of memory. The header-lying inputs are in test/security/hostile-media.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import { PressoError } from '../../../src/errors/catalog.ts';
import type { MediaRun } from '../../../src/processors/ffmpeg/decode-bounds.ts';
import { safeInputArgs } from '../../../src/processors/ffmpeg/demuxers.ts';
import { runFfmpeg } from '../../../src/processors/ffmpeg/run-ffmpeg.ts';
import { FFV1_MEMORY } from '../../../src/processors/ffmpeg/tool-memory.ts';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { limitsEnforced } from '../../../src/processors/shared/run-tool.ts';
import { CODEC_SETTINGS, GIF_MEMORY } from '../../../src/processors/video/encoders.ts';
import { ffmpeg } from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-run-ffmpeg-');
const WIDTH = 1280;
const HEIGHT = 720;

async function runIn(maxFramePixels: number): Promise<MediaRun> {
  return {
    deadline: new Deadline(30 * 60_000),
    signal: new AbortController().signal,
    workDir: await mkdtemp(join(scratch(), 'run-')),
    bounds: { subject: 'video', maxFramePixels, maxDurationSeconds: 60 },
  };
}

/** Ten frames of a 720p pattern (the encoders' lookahead is what grows with more), encoded as asked. */
const source = ['-f', 'lavfi', '-i', `testsrc2=size=${WIDTH}x${HEIGHT}:rate=10:duration=1`];

it('gives each encoder, at the frame limit, the memory an honest encode needs', async () => {
  const encoders = [
    ...Object.values(CODEC_SETTINGS).map((codec) => ({ args: codec.args(30), memory: codec.memory })),
    { args: ['-c:v', 'ffv1', '-threads', '2'], memory: FFV1_MEMORY },
  ];
  for (const { args, memory } of encoders) {
    const run = await runIn(WIDTH * HEIGHT);
    const report = await runFfmpeg(
      [...source, '-pix_fmt', 'yuv420p', ...args, '-f', 'matroska', 'out.mkv'],
      run,
      {
        encoder: { memory, pixels: WIDTH * HEIGHT },
      },
    );
    assert.equal(report.frames, 10, args.join(' '));
  }
  const run = await runIn(WIDTH * HEIGHT);
  const palette = 'split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse';
  const report = await runFfmpeg([...source, '-filter_complex', palette, '-f', 'gif', 'out.gif'], run, {
    encoder: { memory: GIF_MEMORY, pixels: WIDTH * HEIGHT },
  });
  assert.equal(report.frames, 10);
});

it('decodes a frame of exactly the frame limit, whatever its width, and refuses a larger one', async () => {
  // libavcodec checks 1366×768 as 1408×768 (its width rounded up to the stride alignment).
  const limit = 1366 * 768;
  /** Decodes a clip of `size` made in the run's own folder (the only data the sandbox shows ffmpeg). */
  const decode = async (size: string) => {
    const run = await runIn(limit);
    const path = join(run.workDir, `${size}.mkv`);
    ffmpeg(['-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=5:duration=0.2`, '-c:v', 'libx264', path]);
    return runFfmpeg([...safeInputArgs('mkv', path, run.bounds), '-f', 'null', '-'], run);
  };
  assert.equal((await decode('1366x768')).frames, 1);
  // Past the limit and the rounding allowed for it.
  await assert.rejects(
    decode('2048x1536'),
    (error: unknown) =>
      error instanceof PressoError &&
      /2048×1536, past the frame size limit of 1049088 pixels/.test(error.message),
  );
});

it('refuses, naming the memory limit, a run that needs more than its limit', {
  skip: !limitsEnforced,
}, async () => {
  // A frame limit of 64×48 and no encoder share (about 128 MB): far less than x264 needs for 1080p (215 MB
  // resident measured; 720p, at 124 MB without the threaded lookahead, is too close to the limit to prove it).
  const run = await runIn(64 * 48);
  const large = ['-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=10:duration=1'];
  await assert.rejects(
    runFfmpeg([...large, ...CODEC_SETTINGS.h264.args(30), '-f', 'null', '-'], run),
    (error: unknown) =>
      error instanceof PressoError &&
      error.statusCode === 422 &&
      /needed more memory than its limits allow/.test(error.message),
  );
});
