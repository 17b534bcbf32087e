/**
 * Video and audio through the API with the real processors (app.inject()): a conversion with metadata,
 * a 422 on the exact field for an invalid container/codec pair, an audio conversion, and the job
 * record's `progress` extension as a processor reports it.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { retryAfterSeconds } from '../../src/http/routes/jobs.ts';
import { createAudioProcessor } from '../../src/processors/audio/audio-processor.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { createVideoProcessor } from '../../src/processors/video/video-processor.ts';
import { assertErrorBody, type CompletedResult, download } from '../api/helpers.ts';
import { buildTestApp, copyInput, type TestApp } from '../support/http-app.ts';
import {
  audioStream,
  FAST_ENCODE,
  makeClip,
  makeTone,
  makeTones,
  once,
  probe,
  videoStream,
} from '../support/media.ts';
import { useScratch } from '../support/scratch.ts';
import { until } from '../support/until.ts';

const scratch = useScratch('presso-http-media-');

describe('video and audio through the API', () => {
  // One 1-s clip for the two video uploads: each job reads it, none changes it.
  const clip = once(() => makeClip(join(scratch(), 'clip.mp4'), { seconds: 1 }));
  let presso: TestApp;
  before(async () => {
    presso = await buildTestApp({ processors: [createVideoProcessor(), createAudioProcessor()] });
  });
  after(() => presso?.close());

  test('a video upload converts to WebM and answers its metadata', async () => {
    const response = await presso.upload(clip(), {
      video: { format: 'webm', compression: 'ultra' },
      metadata: true,
    });
    assert.equal(response.status, 200, await response.clone().text());
    const result = (await response.json()) as CompletedResult;
    assert.equal(result.input.type, 'video');
    assert.equal(result.output.type, 'video');
    assert.equal(result.output.format, 'webm');
    assert.equal(result.output.mime, 'video/webm');
    assert.match(result.output.name, /\.webm$/);
    const streams = (result.metadata as { streams: { codec: string }[] }).streams;
    assert.deepEqual(
      streams.map((s) => s.codec),
      ['h264', 'aac'],
    );
    const out = join(scratch(), 'out.webm');
    await writeFile(out, await download(presso, result));
    assert.equal(videoStream(probe(out))?.codec_name, 'av1');
    assert.equal(audioStream(probe(out))?.codec_name, 'opus');
  });

  test('an invalid container/codec pair is a 422 on video.codec', async () => {
    const response = await presso.upload(clip(), { video: { format: 'webm', codec: 'h264' } });
    const body = await assertErrorBody(response, 422);
    assert.deepEqual(
      (body.errors as { field: string }[]).map((e) => e.field),
      ['video.codec'],
    );
  });

  test('an audio upload converts to MP3', async () => {
    const tone = makeTone(join(scratch(), 'tone.wav'), ['-c:a', 'pcm_s16le']);
    const response = await presso.upload(tone, { audio: { format: 'mp3', compression: 'ultra' } });
    assert.equal(response.status, 200, await response.clone().text());
    const result = (await response.json()) as CompletedResult;
    assert.equal(result.output.type, 'audio');
    assert.equal(result.output.format, 'mp3');
    const out = join(scratch(), 'out.mp3');
    await writeFile(out, await download(presso, result));
    assert.equal(audioStream(probe(out))?.codec_name, 'mp3');
  });

  test('an MP4 or WebM with no video stream is audio: the audio processor takes it', async () => {
    // ffmpeg writes the `isom` brand for .mp4: the magic bytes say MP4 video, ffprobe finds only audio.
    const cases = [
      {
        name: 'voice.mp4',
        encode: ['-c:a', 'aac', '-b:a', '160k'],
        inputFormat: 'm4a',
        outputFormat: 'm4a',
        codec: 'aac',
      },
      {
        name: 'voice.webm',
        encode: ['-c:a', 'libopus', '-b:a', '128k'],
        inputFormat: 'weba',
        outputFormat: 'opus',
        codec: 'opus',
      },
    ];
    // Both inputs from one ffmpeg run.
    makeTones(
      cases.map((c) => [join(scratch(), c.name), c.encode]),
      3,
    );
    for (const c of cases) {
      const file = join(scratch(), c.name);
      const response = await presso.upload(file, { audio: { compression: 'ultra' } });
      assert.equal(response.status, 200, await response.clone().text());
      const result = (await response.json()) as CompletedResult;
      assert.equal(result.input.type, 'audio', c.name);
      assert.equal(result.input.format, c.inputFormat, c.name);
      assert.equal(result.output.type, 'audio', c.name);
      assert.equal(result.output.format, c.outputFormat, c.name);
      const out = join(scratch(), `out-${c.name}.${c.outputFormat}`);
      await writeFile(out, await download(presso, result));
      const probed = probe(out);
      assert.equal(audioStream(probed)?.codec_name, c.codec, c.name);
      assert.equal(videoStream(probed), undefined, c.name);
      assert.ok(Math.abs(Number(probed.format.duration) - 3) < 0.1, `${c.name}: ${probed.format.duration} s`);
    }
  });
});

test('Retry-After follows the time left estimated from progress, never later than by age', () => {
  assert.equal(retryAfterSeconds(120_000), 5); // by age alone
  assert.equal(retryAfterSeconds(120_000, 98), 3); // 120 s for 98 %: about 2.4 s left
  assert.equal(retryAfterSeconds(120_000, 10), 5); // far from done: the age rule caps it
  assert.equal(retryAfterSeconds(5_000, 99), 1);
});

describe('job progress (extension)', () => {
  let presso: TestApp;
  let reached: () => void;
  const progressSent = new Promise<void>((resolve) => {
    reached = resolve;
  });
  let release: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  before(async () => {
    presso = await buildTestApp({
      // A processor that reports 40 % and waits for the test: the record is read at a known point.
      process: async (request) => {
        request.onProgress?.(40);
        reached();
        await gate;
        return copyInput(request);
      },
    });
  });
  after(() => {
    release(); // a failed assertion must not leave the job, and so the close, waiting
    return presso?.close();
  });

  test('GET /1.0/jobs/{id} shows the progress a processor reports', async () => {
    const png = join(scratch(), 'p.png');
    makeClip(png, { seconds: 1, audio: false, encode: ['-frames:v', '1'] });
    const ack = (await (await presso.upload(png, { async: true })).json()) as { id: string };
    await progressSent;
    let record: Record<string, unknown> = {};
    for (let i = 0; i < 200 && record.progress === undefined; i++) {
      const response = await presso.request(`/1.0/jobs/${ack.id}`);
      record = (await response.json()) as Record<string, unknown>;
      if (record.progress === undefined) await new Promise((r) => setTimeout(r, 20));
      else assert.ok(Number(response.headers.get('retry-after')) >= 1);
    }
    assert.equal(record.status, 'processing');
    assert.equal(record.progress, 40);
    release();
    const done = await presso.waitForJob(ack.id);
    assert.equal(done.status, 'completed');
    assert.equal(done.progress, undefined);
  });
});

describe('queue lanes', () => {
  let presso: TestApp;
  before(async () => {
    presso = await buildTestApp({
      processors: [createVideoProcessor(), createAudioProcessor(), createImageProcessor()],
      // No grace at the close: the video left encoding is aborted, not given 2 s of both cores.
      env: { PRESSO_WORKERS: '1', PRESSO_MEDIA_WORKERS: '1', PRESSO_SHUTDOWN_GRACE: '0s' },
    });
  });
  after(() => presso?.close());

  test('a video being encoded does not hold the image worker: an image upload is answered meanwhile', async () => {
    // Minutes of 640×360 encoding at medium: far longer than one small image, whatever the load.
    const clip = makeClip(join(scratch(), 'long.mp4'), {
      seconds: 30,
      width: 640,
      height: 360,
      encode: FAST_ENCODE,
    });
    const video = await presso.upload(clip, {
      video: { compression: 'medium', format: 'webm' },
      async: true,
    });
    assert.equal(video.status, 202, await video.clone().text());
    const { id } = (await video.json()) as { id: string };
    await until(async () => {
      const record = (await (await presso.request(`/1.0/jobs/${id}`)).json()) as { status: string };
      return record.status === 'processing';
    });
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    const image = await presso.upload(png, { image: { compression: 'high' } }, undefined, 'small.png');
    assert.equal(image.status, 200, await image.clone().text());
    const record = (await (await presso.request(`/1.0/jobs/${id}`)).json()) as { status: string };
    assert.equal(record.status, 'processing', 'the video was still running when the image was answered');
  });
});
