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
import { ValidationError } from '../../../src/errors/catalog.ts';
import { createVideoProcessor } from '../../../src/processors/video/video-processor.ts';
import {
  ffmpeg,
  once,
  type Probed,
  perFileVersion,
  probe,
  runProcessor,
  videoStream,
} from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-video-inputs-');
const processor = createVideoProcessor({ timeBudgetMs: 30 * 60_000, timeFloorMs: 30 * 60_000 });

/**
 * ffprobe's description of an output with every stream's frames counted (decoded): one start gives the
 * frame count and the durations the tests read, not one for each.
 */
const counted = perFileVersion(
  (path) =>
    JSON.parse(
      execFileSync('ffprobe', [
        ...['-v', 'error', '-count_frames', '-show_format', '-show_streams', '-of', 'json', path],
      ]).toString(),
    ) as Probed,
);

/** Frames the first video stream decodes to. */
function frameCount(path: string): number {
  return Number(counted(path).streams.find((s) => s.codec_type === 'video')?.nb_read_frames);
}

/** The one-frame clip, the variable-frame-rate clip and a 2-s clip: one ffmpeg run, the pattern made once. */
const clips = once(() => {
  const [one, vfr, short] = ['one.mp4', 'vfr.mkv', 'short.mp4'].map((name) => join(scratch(), name)) as [
    string,
    string,
    string,
  ];
  const h264 = ['-c:v', 'libx264', '-pix_fmt', 'yuv420p'];
  ffmpeg([
    ...['-f', 'lavfi', '-i', 'testsrc2=size=128x96:rate=25:duration=2'],
    ...['-frames:v', '1', ...h264, one],
    // 25 frames in the first second, then 25 more over five seconds.
    ...['-vf', "setpts='if(lt(N,25),N/25,1+(N-25)/5)/TB'", '-fps_mode', 'passthrough', ...h264, vfr],
    ...[...h264, short],
  ]);
  return { one, vfr, short };
});

describe('video inputs', () => {
  it('a WebM written to a pipe (no duration in its header) is encoded whole', async () => {
    const webm = execFileSync('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=128x96:rate=25:duration=2'],
      // libvpx's fastest speed (a sixth of its default realtime CPU): the test is about the missing duration.
      ...['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-f', 'webm', 'pipe:1'],
    ]);
    const input = join(scratch(), 'recorded.webm');
    writeFileSync(input, webm);
    assert.equal(probe(input).format.duration, undefined, 'the fixture has no duration');
    const result = await runProcessor(processor, input, { format: 'mp4' });
    assert.equal(frameCount(result.path), 50);
  });

  it('a clip of one frame is encoded', async () => {
    const result = await runProcessor(processor, clips().one, { compression: 'high' });
    assert.equal(frameCount(result.path), 1);
    assert.equal(videoStream(counted(result.path))?.width, 128);
  });

  it('a variable frame rate written to MP4 keeps its frames and times (no repeated frames)', async () => {
    const input = clips().vfr;
    assert.equal(frameCount(input), 50);
    const result = await runProcessor(processor, input, { format: 'mp4' });
    assert.equal(frameCount(result.path), 50);
    const seconds = Number(counted(result.path).format.duration);
    assert.ok(Math.abs(seconds - 6) < 0.3, `${seconds} s`);
  });

  it('a clip whose audio outlasts its picture is encoded whole, in MP4 and Matroska', async () => {
    const containers = ['mp4', 'mkv'];
    const encode = ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac'];
    // Both inputs from one ffmpeg run.
    ffmpeg([
      ...['-f', 'lavfi', '-i', 'testsrc2=size=128x96:rate=25:duration=1'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=4:sample_rate=48000'],
      ...containers.flatMap((container) => [...encode, join(scratch(), `long-audio.${container}`)]),
    ]);
    for (const container of containers) {
      const input = join(scratch(), `long-audio.${container}`);
      const result = await runProcessor(processor, input, { compression: 'high', format: 'mp4' });
      assert.equal(frameCount(result.path), 25, container);
      const audio = counted(result.path).streams.find((s) => s.codec_type === 'audio');
      assert.ok(Math.abs(Number(audio?.duration) - 4) < 0.1, `${container}: audio ${audio?.duration} s`);
      await assert.rejects(
        runProcessor(processor, input, { trim: { start: 2 } }),
        (error: ValidationError) =>
          /video ends \(at 1\.0\d s\)/.test(error.errors?.[0]?.message ?? '') &&
          error.errors?.[0]?.field === 'video.trim',
      );
    }
  });

  it('a trim inside the last frame, or an upscale past the frame limit, is a 422 on its field', async () => {
    const input = clips().short;
    const fieldOf = (error: unknown) =>
      error instanceof ValidationError ? error.errors?.[0]?.field : String(error);
    // The last frame starts at 1.96 s: a trim from 1.99 s holds none.
    const trim = await runProcessor(processor, input, { trim: { start: 1.99 } }).catch(fieldOf);
    assert.equal(trim, 'video.trim');
    const resize = await runProcessor(processor, input, { resize: { width: 8000, upscale: true } }).catch(
      fieldOf,
    );
    assert.equal(resize, 'video.resize');
    // A width past the schema's maximum never reaches the frame check: the kind's typed entry refuses it on its
    // field, as the API's request parser does.
    const side = await runProcessor(processor, input, {
      resize: { width: 20000, height: 10, mode: 'fit', upscale: true },
    }).catch(fieldOf);
    assert.equal(side, 'video.resize.width');
  });
});
