/**
 * The media benchmark's quality measures (bench/media/peer.ts) pair the encode's frames with the source's
 * by index. An AVI whose MPEG-4 has B-frames carries no time for most frames, like opencv-doc's
 * Megamind.avi: its first decoded frame is at 0 and the encode's at one frame later, so ffmpeg's time-synced
 * `ssim` compared each output frame with the next source frame. A lossless encode must score as lossless.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ff, frameCount, pairing, sampledSsimulacra2, ssimDb, x264 } from '../../bench/media/peer.ts';
import { useScratch } from '../support/scratch.ts';

const scratch = useScratch('presso-media-pairing-');

/** A moving test pattern (every frame differs from the next), 48 frames. */
const PATTERN = ['-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=24000/1001:duration=2'];

/** SSIM in dB the way peer.ts measured it before: ffmpeg's `ssim` synced on the frames' times. */
function timeSyncedSsimDb(encoded: string, source: string): number {
  const run = spawnSync('ffmpeg', [
    ...['-nostdin', '-hide_banner', '-i', encoded, '-i', source],
    ...['-lavfi', '[0:v][1:v]ssim', '-f', 'null', '-'],
  ]);
  return -10 * Math.log10(1 - Number(/All:([\d.]+)/.exec(run.stderr.toString())?.[1]));
}

describe('media bench frame pairing', () => {
  it('pairs a B-frame AVI with its lossless encode frame by frame', async () => {
    const source = join(scratch(), 'bframes.avi');
    ff([...PATTERN, '-c:v', 'mpeg4', '-bf', '2', '-q:v', '3', source]);
    const encoded = join(scratch(), 'lossless.mp4');
    x264(source, 0, encoded); // CRF 0: lossless 8-bit x264
    assert.equal(frameCount(source), 48);
    assert.equal(frameCount(encoded), 48);
    assert.equal(pairing(encoded, source), 'index');
    // The fixture has the AVI's shift: paired by time, the lossless encode looks like a poor one.
    assert.ok(timeSyncedSsimDb(encoded, source) < 20, 'the fixture no longer shifts the encode by a frame');
    const db = ssimDb(encoded, source);
    assert.ok(db > 60, `lossless encode, SSIM ${db} dB`);
    const s2 = await sampledSsimulacra2(encoded, source, scratch());
    assert.ok(s2 > 99, `lossless encode, sampled SSIMULACRA 2 ${s2}`);
  });

  it('pairs a variable-frame-rate clip by index, and falls back to time when a frame is missing', async () => {
    const source = join(scratch(), 'vfr.mkv');
    // Frames 24 on come 0.2 s later than a constant rate would put them: two frame intervals differ.
    ff([
      ...PATTERN,
      '-vf',
      'setpts=N/(24*TB)+gte(N\\,24)*0.2/TB',
      '-fps_mode',
      'vfr',
      '-c:v',
      'ffv1',
      source,
    ]);
    const encoded = join(scratch(), 'vfr.mp4');
    x264(source, 0, encoded);
    assert.equal(pairing(encoded, source), 'index');
    assert.ok(ssimDb(encoded, source) > 60);
    // One frame dropped: index pairing would shift every later frame, so frames are paired by time.
    const dropped = join(scratch(), 'dropped.mp4');
    ff([
      '-i',
      source,
      '-vf',
      'select=not(eq(n\\,40))',
      '-fps_mode',
      'vfr',
      '-c:v',
      'libx264',
      '-qp',
      '0',
      dropped,
    ]);
    assert.equal(frameCount(dropped), 47);
    assert.equal(pairing(dropped, source), 'time');
    const s2 = await sampledSsimulacra2(dropped, source, scratch());
    assert.ok(s2 > 99, `frames sampled by time from a lossless encode, SSIMULACRA 2 ${s2}`);
  });
});
