/**
 * Media that lies (issue 21, findings 8 and 11) through the API with the real video and audio processors.
 * The limits were checked against what ffprobe reads from the header and the first frames, so a file whose
 * later frames are larger, or whose header claims 1 s of a longer clip, was decoded or remuxed whole; an
 * MP4 whose samples live in another file was answered as an empty MP4 with 200. Each file is built here by
 * ffmpeg and edited in place; each is a 422 that names the limit or the reason, and the server goes on
 * answering. The frame limit is small here (100 000 pixels) and so is every run's memory limit, which is
 * derived from it: an overrun fails in the tool, and the test asserts the 422, not a measured RSS.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createAudioProcessor } from '../../src/processors/audio/audio-processor.ts';
import { createVideoProcessor } from '../../src/processors/video/video-processor.ts';
import { assertErrorBody, type CompletedResult, download } from '../api/helpers.ts';
import {
  aliasReference,
  externalSamples,
  lieAviLength,
  lieMatroskaDuration,
  lieMp4Duration,
  longClip,
  longClips,
  sizeSwitching,
  urlReference,
} from '../support/hostile-media.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';
import { duration, makeClip, makeTones, probe, videoStream } from '../support/media.ts';
import { useScratch } from '../support/scratch.ts';

const scratch = useScratch('presso-hostile-media-');
const MAX_FRAME_PIXELS = 100_000;
const MAX_SECONDS = 10;

describe('hostile media through the API', () => {
  let presso: TestApp;
  before(async () => {
    const limits = { maxFramePixels: MAX_FRAME_PIXELS, maxDurationSeconds: MAX_SECONDS };
    presso = await buildTestApp({ processors: [createVideoProcessor(limits), createAudioProcessor(limits)] });
  });
  after(() => presso?.close());

  /** The refusal: a 422 in the documented shape whose message matches, and the server still answering. */
  async function refused(file: string, data: unknown, message: RegExp): Promise<void> {
    const body = await assertErrorBody(await presso.upload(file, data), 422);
    assert.match(String(body.message), message, file);
    const health = await presso.request('/healthz', { auth: false });
    assert.equal(health.status, 200);
  }

  test('frames that grow past the frame limit after a small header: AVI, Matroska, MP4', async () => {
    const dir = scratch();
    // The first through the quality search and the encode; the others straight to an encode (GIF has no
    // search), which is where the large frames are met either way.
    const cases = [
      { file: sizeSwitching(dir, 'mjpeg.avi', 'mjpeg', 'avi'), video: { compression: 'ultra' } },
      { file: sizeSwitching(dir, 'mjpeg.mkv', 'mjpeg', 'matroska'), video: { format: 'gif' } },
      { file: sizeSwitching(dir, 'h264.mkv', 'h264', 'matroska'), video: { format: 'gif' } },
      { file: sizeSwitching(dir, 'h264.mp4', 'h264', 'mp4'), video: { format: 'gif' } },
    ];
    for (const { file, video } of cases) {
      // The lie: what the header says fits the limit.
      const header = videoStream(probe(file));
      const pixels = (header?.width ?? 0) * (header?.height ?? 0);
      assert.ok(pixels <= MAX_FRAME_PIXELS, `${file}: ${header?.width}×${header?.height}`);
      await refused(file, { video }, /1600×1200, past the frame size limit of 100000 pixels/);
    }
  });

  test('a header that claims 1 s of a 30 s clip: Matroska, MP4, AVI; encoded and remuxed', async () => {
    const dir = scratch();
    // x264 ultrafast: the lie is in the headers; the 150 frames are written (and decoded) in a fraction of the CPU.
    const encode = ['-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac'];
    const [mkv = '', mp4 = ''] = longClips([join(dir, 'long.mkv'), join(dir, 'long.mp4')], 30, encode, true);
    lieMatroskaDuration(mkv, 1);
    lieMp4Duration(mp4, 1);
    const avi = longClip(join(dir, 'long.avi'), 30, ['-c:v', 'mjpeg']);
    lieAviLength(avi, 5);
    for (const file of [mkv, mp4, avi]) {
      assert.ok(duration(file) <= 1.01, `${file} claims ${duration(file)} s`);
      for (const compression of ['ultra', 'lossless']) {
        await refused(file, { video: { compression } }, /runs past the duration limit of 10 s/);
      }
    }
  });

  test('audio whose header claims 1 s of 30 s: Matroska audio and M4A', async () => {
    const dir = scratch();
    // Both tones from one ffmpeg run, at 8 kHz: the lie is about the length, which the rate does not change,
    // and every step (generating, encoding, the processor's decode up to its cap) costs less per second.
    const [mka = '', m4a = ''] = [join(dir, 'long.mka'), join(dir, 'long.m4a')];
    makeTones(
      [
        [mka, ['-c:a', 'libopus']],
        [m4a, ['-c:a', 'aac']],
      ],
      30,
      8000,
    );
    lieMatroskaDuration(mka, 1);
    lieMp4Duration(m4a, 1);
    for (const file of [mka, m4a]) {
      assert.ok(duration(file) <= 1.01, `${file} claims ${duration(file)} s`);
      for (const compression of ['ultra', 'lossless']) {
        await refused(file, { audio: { compression } }, /runs past the duration limit of 10 s/);
      }
    }
  });

  describe('MP4 whose samples are in another file', () => {
    let secret: string;
    let dir: string;
    before(() => {
      dir = scratch();
      // The secret: a clip of a size no other input has, and the MP4 its index describes.
      secret = makeClip(join(dir, 'secret.mp4'), { width: 96, height: 64, seconds: 2, audio: false });
    });

    test('is dangerous: ffmpeg following the reference copies the other file', () => {
      const movie = externalSamples(secret, join(dir, 'alias.mp4'), aliasReference('/elsewhere/secret.mp4'));
      const leak = join(dir, 'leak.mkv');
      const run = spawnSync('ffmpeg', [
        '-v',
        'error',
        '-y',
        '-enable_drefs',
        '1',
        '-i',
        movie,
        '-c',
        'copy',
        leak,
      ]);
      assert.equal(run.status, 0, run.stderr.toString());
      assert.equal(
        videoStream(probe(leak))?.width,
        96,
        'the reference was not followed; the test proves nothing',
      );
      assert.ok(duration(leak) > 1.5);
    });

    test('is a 422 saying so, never an empty MP4, whatever the reference and level', async () => {
      const references = [
        ['url', urlReference('secret.mp4')],
        ['url-absolute', urlReference(`file://${secret}`)],
        ['playlist', urlReference('index.m3u8')],
        ['alias', aliasReference('/elsewhere/secret.mp4')],
      ] as const;
      for (const [name, entry] of references) {
        for (const compressed of [false, true]) {
          const file = externalSamples(secret, join(dir, `${name}-${compressed}.mp4`), entry, compressed);
          for (const video of [{ compression: 'lossless' }, { compression: 'ultra' }]) {
            await refused(file, { video }, /its samples are in another file/);
          }
        }
      }
      const tone = join(dir, 'tone.m4a');
      spawnSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=duration=2', '-c:a', 'aac', tone]);
      const m4a = externalSamples(tone, join(dir, 'external.m4a'), urlReference('tone.m4a'));
      await refused(m4a, { audio: { compression: 'lossless' } }, /its samples are in another file/);
    });
  });

  test('a playlist behind a container signature is not read as a playlist', async () => {
    const dir = scratch();
    const secret = makeClip(join(dir, 'secret.mp4'), { width: 96, height: 64, seconds: 2, audio: false });
    // An ID3 tag, then an ffconcat list: ffmpeg's own probing skips the tag and reads the list.
    const id3 = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 0]);
    const list = join(dir, 'list.mp3');
    writeFileSync(list, Buffer.concat([id3, Buffer.from("ffconcat version 1.0\nfile 'secret.mp4'\n")]));
    const leak = join(dir, 'leak.mkv');
    const run = spawnSync('ffmpeg', ['-v', 'error', '-y', '-i', list, '-c', 'copy', leak]);
    assert.equal(run.status, 0, run.stderr.toString());
    assert.equal(
      videoStream(probe(leak))?.width,
      96,
      'ffmpeg did not follow the list; the test proves nothing',
    );
    const body = await assertErrorBody(await presso.upload(list, {}), 415);
    assert.match(String(body.message), /could not be recognised/);
    // The same list as the samples of an MP4 is refused for the reference, before ffmpeg reads it.
    const mp4 = externalSamples(secret, join(dir, 'playlist.mp4'), urlReference(list));
    await refused(mp4, { video: { compression: 'lossless' } }, /its samples are in another file/);
  });

  test('honest media within the limits still converts after all of the above', async () => {
    // AV1, the encoder that takes the most memory, under the run limits derived from the small frame limit.
    // 10 frames a second: the memory limit is per frame size, and each of the search's six AV1 runs encodes
    // every frame.
    const clip = makeClip(join(scratch(), 'honest.mp4'), { width: 160, height: 120, seconds: 1, fps: 10 });
    const response = await presso.upload(clip, { video: { compression: 'ultra', format: 'webm' } });
    assert.equal(response.status, 200, await response.clone().text());
    const out = join(scratch(), 'honest.webm');
    writeFileSync(out, await download(presso, (await response.json()) as CompletedResult));
    assert.equal(videoStream(probe(out))?.width, 160);
    assert.ok(Math.abs(duration(out) - 1) < 0.1, String(duration(out)));
  });
});
