/**
 * The video processor against the Processor contract, with one generated clip per declared input
 * container (each written by ffmpeg with that container's usual codecs).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { videoModule } from '../../../src/processors/video/index.ts';
import { processorContract } from '../../contracts/processor.contract.ts';
import { FAST_ENCODE, makeClip, probe, videoStream } from '../../support/media.ts';

// The contract registers one test per sample, so the samples exist before the suite is declared.
const dir = await mkdtemp(join(tmpdir(), 'presso-video-contract-'));
after(() => rm(dir, { recursive: true, force: true }));

const clip = (name: string, encode: string[], seconds = 1) =>
  makeClip(join(dir, name), { seconds, encode, width: 96, height: 64 });
const mp4 = clip('clip.mp4', ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac']);
const bytes = await readFile(mp4);
const cut = join(dir, 'cut.mp4');
await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length / 3)));
const damaged = Buffer.from(bytes);
for (let i = 64; i < damaged.length; i += 5) damaged[i] = (damaged[i] ?? 0) ^ 0x5a;
const damagedPath = join(dir, 'damaged.mp4');
await writeFile(damagedPath, damaged);

processorContract(
  videoModule,
  {
    byFormat: {
      mp4,
      mov: clip('clip.mov', ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac']),
      webm: clip('clip.webm', ['-c:v', 'libvpx-vp9', '-c:a', 'libopus']),
      mkv: clip('clip.mkv', ['-c:v', 'libx264', '-c:a', 'aac']),
      avi: clip('clip.avi', ['-c:v', 'mpeg4', '-c:a', 'libmp3lame']),
      mpeg: clip('clip.mpg', ['-c:v', 'mpeg2video', '-c:a', 'mp2', '-f', 'vob']),
      ogv: clip('clip.ogv', ['-c:v', 'libtheora', '-c:a', 'libvorbis']),
      mpegts: clip('clip.ts', ['-c:v', 'libx264', '-c:a', 'aac', '-f', 'mpegts']),
      flv: clip('clip.flv', ['-c:v', 'libx264', '-c:a', 'aac', '-f', 'flv']),
      '3gp': clip('clip.3gp', ['-c:v', 'libx264', '-c:a', 'aac']),
      wmv: clip('clip.wmv', ['-c:v', 'wmv2', '-c:a', 'wmav2']),
    },
    corrupt: [cut, damagedPath],
    // VP9 at medium on a 6 s 640×360 clip runs for seconds: every abort lands mid-run.
    slow: {
      path: makeClip(join(dir, 'slow.mp4'), { width: 640, height: 360, seconds: 6, encode: FAST_ENCODE }),
      params: { format: 'webm', compression: 'medium' },
    },
    async verifyOutput(result) {
      const video = videoStream(probe(result.path));
      assert.ok(video !== undefined && (video.width ?? 0) > 0 && (video.height ?? 0) > 0);
    },
  },
  { PRESSO_VIDEO_TIME_BUDGET: '30m', PRESSO_VIDEO_TIME_FLOOR: '30m' },
);
