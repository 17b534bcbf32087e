/**
 * Video inputs that real recorders write: a WebM streamed to a pipe (MediaRecorder's way: no duration in
 * its header), a clip of one frame, and a variable frame rate written to MP4. Every assertion decodes the
 * output with ffprobe.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createVideoProcessor } from '../../../src/processors/video/video-processor.ts';
import { ffmpeg, probe, runProcessor, videoStream } from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-video-inputs-');
const processor = createVideoProcessor({ timeBudgetMs: 30 * 60_000 });

/** Frames the first video stream decodes to. */
function frameCount(path: string): number {
  const out = execFileSync('ffprobe', [
    ...['-v', 'error', '-select_streams', 'v:0', '-count_frames'],
    ...['-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', path],
  ]);
  return Number(out.toString().trim());
}

describe('video inputs', () => {
  it('a WebM written to a pipe (no duration in its header) is encoded whole', async () => {
    const webm = execFileSync('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=128x96:rate=25:duration=2'],
      ...['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-f', 'webm', 'pipe:1'],
    ]);
    const input = join(scratch(), 'recorded.webm');
    writeFileSync(input, webm);
    assert.equal(probe(input).format.duration, undefined, 'the fixture has no duration');
    const result = await runProcessor(processor, input, { format: 'mp4' });
    assert.equal(frameCount(result.path), 50);
  });

  it('a clip of one frame is encoded', async () => {
    const input = join(scratch(), 'one.mp4');
    ffmpeg([
      ...['-f', 'lavfi', '-i', 'testsrc2=size=128x96:rate=25', '-frames:v', '1'],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', input],
    ]);
    const result = await runProcessor(processor, input, { compression: 'high' });
    assert.equal(frameCount(result.path), 1);
    assert.equal(videoStream(probe(result.path))?.width, 128);
  });

  it('a variable frame rate written to MP4 keeps its frames and times (no repeated frames)', async () => {
    const input = join(scratch(), 'vfr.mkv');
    // 25 frames in the first second, then 25 more over five seconds.
    ffmpeg([
      ...['-f', 'lavfi', '-i', 'testsrc2=size=128x96:rate=25:duration=2'],
      ...['-vf', "setpts='if(lt(N,25),N/25,1+(N-25)/5)/TB'", '-fps_mode', 'passthrough'],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', input],
    ]);
    assert.equal(frameCount(input), 50);
    const result = await runProcessor(processor, input, { format: 'mp4' });
    assert.equal(frameCount(result.path), 50);
    const seconds = Number(probe(result.path).format.duration);
    assert.ok(Math.abs(seconds - 6) < 0.3, `${seconds} s`);
  });
});
