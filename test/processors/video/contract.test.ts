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
import { FAST_ENCODE, formatFiles, makeClip, makeClips, probe, videoStream } from '../../support/media.ts';

// The contract registers one test per sample, so the samples exist before the suite is declared.
const dir = await mkdtemp(join(tmpdir(), 'presso-video-contract-'));
after(() => rm(dir, { recursive: true, force: true }));

// Every container's clip from one ffmpeg run (one start instead of eleven), ten frames long: the contract
// decodes each into its default output (a quality search and an encode, with AV1 for WebM, six encodes of
// every frame), and what it checks (detection, a decodable output, writes) does not depend on the length.
const CLIPS = {
  mp4: ['clip.mp4', ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac']],
  mov: ['clip.mov', ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac']],
  webm: ['clip.webm', ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-c:a', 'libopus']],
  mkv: ['clip.mkv', ['-c:v', 'libx264', '-c:a', 'aac']],
  avi: ['clip.avi', ['-c:v', 'mpeg4', '-c:a', 'libmp3lame']],
  mpeg: ['clip.mpg', ['-c:v', 'mpeg2video', '-c:a', 'mp2', '-f', 'vob']],
  ogv: ['clip.ogv', ['-c:v', 'libtheora', '-c:a', 'libvorbis']],
  mpegts: ['clip.ts', ['-c:v', 'libx264', '-c:a', 'aac', '-f', 'mpegts']],
  flv: ['clip.flv', ['-c:v', 'libx264', '-c:a', 'aac', '-f', 'flv']],
  '3gp': ['clip.3gp', ['-c:v', 'libx264', '-c:a', 'aac']],
  wmv: ['clip.wmv', ['-c:v', 'wmv2', '-c:a', 'wmav2']],
} as const satisfies Record<string, readonly [string, readonly string[]]>;
const { paths: byFormat, outputs } = formatFiles(dir, CLIPS);
makeClips(outputs, { seconds: 0.4, width: 96, height: 64 });
const mp4 = byFormat.mp4;
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
    byFormat,
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
