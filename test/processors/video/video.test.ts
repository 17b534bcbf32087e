/**
 * The video processor on small generated clips: every assertion decodes the output with ffprobe
 * (codecs, dimensions, duration, streams). Sizes are tiny and clips 1–2 s so the file stays fast.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { PressoError } from '../../../src/errors/catalog.ts';
import { checkVideoParams } from '../../../src/processors/video/params-check.ts';
import { createVideoProcessor } from '../../../src/processors/video/video-processor.ts';
import { corpusDir } from '../../support/corpus.ts';
import {
  audioStream,
  duration,
  ffmpeg,
  makeClip,
  makeClips,
  once,
  perFileVersion,
  probe,
  runProcessor,
  sharedRuns,
  videoStream,
} from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-video-');
const processor = createVideoProcessor({ timeBudgetMs: 30 * 60_000, timeFloorMs: 30 * 60_000 });
/** For the tests that only read an output: each request is encoded once in the file. */
const shared = sharedRuns(processor);
const FRAME = 1 / 25;

/** Bytes offset of a top-level MP4 box type, to check that `moov` comes before `mdat` (faststart). */
async function boxOffset(path: string, type: string): Promise<number> {
  const bytes = await readFile(path);
  return bytes.indexOf(Buffer.from(type, 'latin1'));
}

/** The decoded picture's MD5, once per file version: the 2-s clip is compared with four remuxes of it. */
const decodedMd5 = perFileVersion((path) =>
  execFileSync('ffmpeg', ['-v', 'error', '-i', path, '-map', '0:v:0', '-f', 'md5', '-']).toString().trim(),
);

const hash = async (p: string) =>
  createHash('sha1')
    .update(await readFile(p))
    .digest('hex');

/**
 * The slow encoders' requests, each encoder once (x265's pool, VP9's row threads and SVT-AV1's threads are
 * pinned), on the 1-s clip at 10 frames a second: the determinism test encodes each twice, the container
 * test reads them. Each request runs the encoder six times (five trials, the output); a frame fewer is
 * CPU saved six times, and what is compared (the bytes) or read (the codec) does not depend on the rate.
 */
const SLOW_ENCODES = {
  h265: { format: 'mkv', codec: 'h265', audio: 64, compression: 'ultra' },
  vp9: { format: 'webm', codec: 'vp9', compression: 'ultra' },
  av1: { format: 'webm', compression: 'ultra' },
} as const;

describe('video processor', () => {
  let clip: string;
  // One second: where the frame size alone matters.
  let oneSecond: string;
  // The same second at 10 frames a second: the slow encoders' input.
  let slowSecond: string;
  let hdr: string;
  let vp9: string;
  before(() => {
    [clip, oneSecond, slowSecond, hdr, vp9] = [
      'clip.mp4',
      'second.mp4',
      'second-10fps.mp4',
      'hdr.mkv',
      'vp9.mkv',
    ].map((name) => join(scratch(), name)) as [string, string, string, string, string];
    // The inputs generated from the pattern, by one ffmpeg run (one start, the sources generated once): the
    // 2-s clip, and the first second of it as H.264, as 10-bit PQ HDR H.265 and as VP9 with Opus.
    const h264 = ['-c:v', 'libx264', '-crf', '12', '-pix_fmt', 'yuv420p', '-c:a', 'aac'];
    const hdrEncode = [
      ...['-c:v', 'libx265', '-pix_fmt', 'yuv420p10le', '-x265-params', 'log-level=error'],
      ...['-color_trc', 'smpte2084', '-color_primaries', 'bt2020', '-colorspace', 'bt2020nc', '-c:a', 'aac'],
    ];
    // libvpx's fastest speed (a sixth of its default realtime CPU): the lossless test copies what it wrote.
    const vp9Encode = ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-c:a', 'libopus'];
    makeClips([
      [clip, h264],
      [oneSecond, [...h264, '-t', '1']],
      [slowSecond, [...h264, '-t', '1', '-r', '10']],
      [hdr, [...hdrEncode, '-t', '1']],
      [vp9, [...vp9Encode, '-t', '1']],
    ]);
  });
  const second = () => oneSecond;
  const slow = () => slowSecond;
  // `ultra` on the 2-s clip twice, independently; the second run reports its progress (which changes no
  // argument of any ffmpeg run: the same bytes are expected).
  const ultraTwice = once(async () => {
    const first = await shared(clip, { compression: 'ultra' });
    const progress: number[] = [];
    const onProgress = (p: number) => progress.push(p);
    const again = await runProcessor(processor, clip, { compression: 'ultra' }, { onProgress });
    return { first, again, progress };
  });

  it('defaults to H.264 High + AAC in MP4, yuv420p, faststart, same duration', async () => {
    const result = await runProcessor(processor, clip);
    assert.equal(result.format, 'mp4');
    const out = probe(result.path);
    const video = videoStream(out);
    assert.equal(video?.codec_name, 'h264');
    assert.equal(video?.profile, 'High');
    assert.equal(video?.pix_fmt, 'yuv420p');
    assert.equal(audioStream(out)?.codec_name, 'aac');
    assert.ok(Math.abs(duration(result.path) - duration(clip)) <= 2 * FRAME);
    assert.ok((await boxOffset(result.path, 'moov')) < (await boxOffset(result.path, 'mdat')));
    assert.ok(result.outputSize < result.inputSize, 'a CRF 12 input gets smaller');
  });

  it('gives the same bytes for the same request, with every encoder (fixed thread counts)', async () => {
    const { first, again } = await ultraTwice();
    assert.equal(await hash(first.path), await hash(again.path));
    // Outputs must not depend on timing.
    for (const [codec, params] of Object.entries(SLOW_ENCODES)) {
      const kept = await shared(slow(), params);
      const twice = await runProcessor(processor, slow(), params);
      assert.equal(await hash(kept.path), await hash(twice.path), codec);
    }
  });

  it('ultra is smaller than medium', async () => {
    const medium = await shared(clip, { compression: 'medium' });
    const { first: ultra } = await ultraTwice();
    assert.ok(ultra.outputSize < medium.outputSize, `${ultra.outputSize} vs ${medium.outputSize}`);
  });

  it('writes WebM with AV1 (its default) and Opus or VP9, MP4 with AV1, and Matroska with H.265', async () => {
    const webm = await shared(slow(), SLOW_ENCODES.av1);
    assert.equal(webm.format, 'webm');
    assert.equal(videoStream(probe(webm.path))?.codec_name, 'av1');
    assert.equal(audioStream(probe(webm.path))?.codec_name, 'opus');
    const vp9 = await shared(slow(), SLOW_ENCODES.vp9);
    assert.equal(videoStream(probe(vp9.path))?.codec_name, 'vp9');
    const av1 = await shared(slow(), { codec: 'av1', audio: 'remove', compression: 'ultra' });
    assert.equal(av1.format, 'mp4');
    assert.equal(videoStream(probe(av1.path))?.codec_name, 'av1');
    assert.equal(audioStream(probe(av1.path)), undefined);
    const hevc = await shared(slow(), SLOW_ENCODES.h265);
    assert.equal(videoStream(probe(hevc.path))?.codec_name, 'hevc');
    assert.equal(hevc.format, 'mkv');
  });

  it('lossless remuxes: same decoded frames, faststart, subtitles dropped', async () => {
    const withSubs = join(scratch(), 'subs.mkv');
    const srt = join(scratch(), 'subs.srt');
    await writeFile(srt, '1\n00:00:00,000 --> 00:00:01,000\nhello\n');
    ffmpeg(['-i', clip, '-i', srt, '-map', '0', '-map', '1', '-c', 'copy', '-c:s', 'srt', withSubs]);
    assert.ok(probe(withSubs).streams.some((s) => s.codec_type === 'subtitle'));
    const result = await runProcessor(processor, withSubs, { compression: 'lossless', format: 'mp4' });
    const out = probe(result.path);
    assert.deepEqual(out.streams.map((s) => s.codec_type).sort(), ['audio', 'video']);
    assert.equal(decodedMd5(result.path), decodedMd5(clip));
    assert.ok((await boxOffset(result.path, 'moov')) < (await boxOffset(result.path, 'mdat')));
  });

  it('lossless into WebM copies VP9 and Opus, and refuses H.264 and AAC on video.format before ffmpeg runs', async () => {
    const copied = await runProcessor(processor, vp9, { compression: 'lossless', format: 'webm' });
    assert.equal(copied.format, 'webm');
    assert.equal(decodedMd5(copied.path), decodedMd5(vp9));
    const refused = await runProcessor(processor, clip, { compression: 'lossless', format: 'webm' }).catch(
      (error: unknown) => error,
    );
    assert.ok(refused instanceof PressoError && refused.statusCode === 422, String(refused));
    const [problem] =
      (refused as PressoError & { errors?: { field: string; message: string }[] }).errors ?? [];
    assert.equal(problem?.field, 'video.format');
    assert.match(problem?.message ?? '', /h264 and aac, which webm cannot carry/);
  });

  it('lossless keeps the container tags but not where the camera was (GPS), in MP4 and Matroska', async () => {
    const GPS = '+48.8583+002.2945/';
    const tagged = (name: string, ...metadata: string[]) => {
      const path = join(scratch(), name);
      ffmpeg(['-i', clip, '-c', 'copy', ...metadata.flatMap((tag) => ['-metadata', tag]), path]);
      return path;
    };
    const located = tagged('located.mp4', 'title=Harbour', `location=${GPS}`);
    const appleKeys = tagged('located.mkv', `com.apple.quicktime.location.ISO6709=${GPS}`);
    const locationTags = (path: string) =>
      Object.keys(probe(path).format.tags ?? {}).filter((key) => /location/i.test(key));
    assert.deepEqual(locationTags(located).sort(), ['location', 'location-eng']);
    assert.equal(locationTags(appleKeys).length, 1);
    for (const [input, format] of [
      [located, 'mp4'],
      [located, 'mkv'],
      [appleKeys, 'mkv'],
    ] as const) {
      const result = await runProcessor(processor, input, { compression: 'lossless', format });
      assert.deepEqual(locationTags(result.path), [], `${input} to ${format}`);
      const tags = probe(result.path).format.tags ?? {};
      if (input === located) assert.equal(tags.title ?? tags.TITLE, 'Harbour');
      assert.equal(decodedMd5(result.path), decodedMd5(clip));
    }
  });

  it('resizes with even dimensions: auto fits, fit covers and crops; odd inputs become even', async () => {
    // 10 frames a second: only the frame size is read, and each of the four requests searches and encodes.
    const odd = makeClip(join(scratch(), 'odd.mp4'), { width: 161, height: 121, seconds: 1, fps: 10 });
    const plain = await runProcessor(processor, odd, { compression: 'ultra' });
    assert.deepEqual(dims(plain.path), [160, 120]);
    // 161×121 into width 100: 100 × 75.2 → 75 → even, inside the box: 74.
    const auto = await runProcessor(processor, odd, { resize: { width: 100 } });
    assert.deepEqual(dims(auto.path), [100, 74]);
    const fit = await runProcessor(processor, odd, { resize: { width: 64, height: 64, mode: 'fit' } });
    assert.deepEqual(dims(fit.path), [64, 64]);
    const noUp = await runProcessor(processor, odd, { resize: { width: 400, upscale: false } });
    assert.deepEqual(dims(noUp.path), [160, 120]);
  });

  it('trims within a frame, changes the frame rate, rotates', async () => {
    const trimmed = await runProcessor(processor, clip, {
      trim: { start: 0.5, duration: 1 },
      audio: 'remove',
    });
    assert.ok(Math.abs(duration(trimmed.path) - 1) <= FRAME, String(duration(trimmed.path)));
    // Both in one encode: each shows in its own property of the output.
    const slowerTurned = await runProcessor(processor, second(), { fps: 10, rotate: 90 });
    const video = videoStream(probe(slowerTurned.path));
    assert.equal(video?.avg_frame_rate, '10/1');
    assert.deepEqual([video?.width, video?.height], [96, 128]);
  });

  it('applies the rotation the file asks for, and reports it in the metadata', async () => {
    const rotated = join(scratch(), 'rotated.mp4');
    ffmpeg(['-i', second(), '-c', 'copy', '-metadata:s:v:0', 'rotate=90', rotated]);
    const result = await runProcessor(processor, rotated, {}, { wantMetadata: true });
    assert.deepEqual(dims(result.path), [96, 128]);
    const streams = result.metadata?.streams as Record<string, unknown>[];
    // ffmpeg 5.1 stores the legacy `rotate=90` tag as a display matrix turning 90° counter-clockwise,
    // and plays it so: 270° clockwise, which is what the metadata reports.
    assert.equal(streams[0]?.rotation, 270);
    assert.equal(streams[0]?.width, 128);
    assert.equal(streams[0]?.fps, 25);
    assert.equal(streams[1]?.channels, 1);
    assert.equal(streams[1]?.sampleRate, 48000);
    assert.ok(Math.abs((result.metadata?.duration as number) - 1) < 0.1);
  });

  it('turns 10-bit PQ HDR input into 8-bit 4:2:0 SDR H.264 High', async () => {
    const result = await runProcessor(processor, hdr, { format: 'mp4' });
    const video = videoStream(probe(result.path));
    assert.equal(video?.codec_name, 'h264');
    assert.equal(video?.pix_fmt, 'yuv420p');
    assert.equal(video?.profile, 'High');
    assert.equal(video?.color_transfer, 'bt709');
  });

  it('keeps the timing of a real variable-frame-rate phone video', async () => {
    const phone = join(
      corpusDir,
      'usr/share/forensics-samples/original-files/movie1/VID_20191220_170832.mp4',
    );
    const result = await runProcessor(processor, phone, { resize: { width: 192 }, compression: 'ultra' });
    assert.deepEqual(dims(result.path), [192, 108]);
    assert.ok(Math.abs(duration(result.path) - duration(phone)) <= 2 * FRAME, String(duration(result.path)));
    assert.equal(audioStream(probe(result.path))?.codec_name, 'aac');
  });

  it('writes an animated GIF without audio', async () => {
    const result = await runProcessor(processor, second(), { format: 'gif', resize: { width: 64 } });
    assert.equal(result.format, 'gif');
    const out = probe(result.path);
    assert.deepEqual(dims(result.path), [64, 48]);
    assert.equal(out.streams.length, 1);
  });

  it('reports rising progress during the encode', async () => {
    const { progress: seen } = await ultraTwice();
    assert.ok(seen.length >= 2, String(seen));
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      seen,
    );
    assert.ok(seen.every((p) => p >= 0 && p < 100));
  });

  it('refuses invalid container/codec pairs and re-encode options with lossless, on the exact field', () => {
    assert.deepEqual(
      checkVideoParams({ format: 'webm', codec: 'h264' }, 'video').map((e) => e.field),
      ['video.codec'],
    );
    assert.deepEqual(
      checkVideoParams({ compression: 'lossless', resize: { width: 10 } }, 'video').map((e) => e.field),
      ['video.resize'],
    );
    assert.deepEqual(
      checkVideoParams({ format: 'gif', codec: 'vp9', audio: 96 }, 'video').map((e) => e.field),
      ['video.codec', 'video.audio'],
    );
    assert.deepEqual(
      checkVideoParams({ resize: { mode: 'fit', width: 4 } }, 'video').map((e) => e.field),
      ['video.resize'],
    );
  });

  it('fails truncated and fake media with a 422', async () => {
    const bytes = await readFile(clip);
    const cut = join(scratch(), 'cut.mp4');
    await writeFile(cut, bytes.subarray(0, 2000));
    const fake = join(scratch(), 'fake.mp4');
    const junk = Buffer.concat([bytes.subarray(0, 32), Buffer.alloc(5000, 0x41)]);
    await writeFile(fake, junk);
    for (const path of [cut, fake]) {
      await assert.rejects(runProcessor(processor, path), (error: unknown) => {
        assert.ok(error instanceof PressoError, String(error));
        assert.equal(error.statusCode, 422);
        assert.ok(!error.message.includes(scratch()), error.message);
        return true;
      });
    }
  });

  it('refuses inputs over the limits with a 422 that names the limit', async () => {
    const strict = createVideoProcessor({ maxDurationSeconds: 1, maxFramePixels: 100 * 100 });
    await assert.rejects(runProcessor(strict, clip), /lasts 2 s; at most 1 s/);
    await assert.rejects(runProcessor(strict, second()), /at most 10000 pixels/);
  });
});

function dims(path: string): [number, number] {
  const video = videoStream(probe(path));
  return [video?.width ?? 0, video?.height ?? 0];
}
