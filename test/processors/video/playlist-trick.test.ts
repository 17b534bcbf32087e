/**
 * Untrusted media must not make ffmpeg read other files: an upload that is really an HLS playlist or an
 * ffconcat list naming a local file. First the test proves each planted file is dangerous (ffmpeg left
 * to probe on its own copies the secret clip into its output); then that the service never lets it
 * through: detection refuses the content, and the processor, even when told the file is an AVI or MP4,
 * opens it only with that demuxer and the `file` protocol, so the job fails and no output exists.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { PressoError } from '../../../src/errors/catalog.ts';
import { detectFile } from '../../../src/media/detect.ts';
import { createVideoProcessor } from '../../../src/processors/video/video-processor.ts';
import { duration, makeClip, probe } from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-playlist-');
const processor = createVideoProcessor();

describe('planted playlists and concat lists', () => {
  const planted: { name: string; path: string }[] = [];

  before(async () => {
    const dir = scratch();
    // The secret: a 3 s clip of a size no test input has, next to the planted files.
    makeClip(join(dir, 'secret.ts'), {
      width: 96,
      height: 64,
      seconds: 3,
      encode: ['-c:v', 'libx264', '-an', '-f', 'mpegts'],
    });
    makeClip(join(dir, 'secret.mp4'), { width: 96, height: 64, seconds: 3, audio: false });
    const hls = [
      '#EXTM3U',
      '#EXT-X-VERSION:3',
      '#EXT-X-TARGETDURATION:3',
      '#EXTINF:3.0,',
      'secret.ts',
      '#EXT-X-ENDLIST',
      '',
    ];
    const concat = ['ffconcat version 1.0', "file 'secret.mp4'", ''];
    for (const [name, text] of [
      ['upload.avi', hls.join('\n')],
      ['upload.mp4', concat.join('\n')],
      ['playlist.m3u8', hls.join('\n')],
    ] as const) {
      const path = join(dir, name);
      await writeFile(path, text);
      planted.push({ name, path });
    }
  });

  // ffmpeg 5.1's HLS probe wants an .m3u8 name, so only the concat list is dangerous under any name.
  it('is dangerous: ffmpeg left to probe copies the secret clip', () => {
    for (const { path } of planted.filter((p) => p.name !== 'upload.avi')) {
      const out = `${path}.leak.mkv`;
      const run = spawnSync('ffmpeg', [
        '-nostdin',
        '-loglevel',
        'error',
        '-y',
        '-i',
        path,
        '-c',
        'copy',
        out,
      ]);
      assert.equal(run.status, 0, run.stderr.toString());
      const leaked = probe(out).streams.find((s) => s.codec_type === 'video');
      assert.equal(leaked?.width, 96, `${path} did not leak; the test would prove nothing`);
      assert.ok(Math.abs(duration(out) - 3) < 0.2);
    }
  });

  it('is refused by content detection', async () => {
    for (const { path } of planted) assert.equal(await detectFile(path), undefined, path);
  });

  it('fails cleanly in the processor even when declared as AVI or MP4, writing no output', async () => {
    for (const { name, path } of planted) {
      for (const format of ['avi', 'mp4', 'mkv', 'mpeg']) {
        const workDir = join(scratch(), `work-${name}-${format}`);
        await mkdir(workDir, { recursive: true });
        const input = {
          path,
          name: 'upload',
          kind: 'video' as const,
          format,
          mime: 'video/x-msvideo',
          size: 1,
        };
        await assert.rejects(
          processor.process({
            input,
            params: {},
            workDir,
            signal: new AbortController().signal,
            wantMetadata: true,
          }),
          (error: unknown) => error instanceof PressoError && error.statusCode === 422,
          `${path} as ${format}`,
        );
        const written = await readdir(workDir);
        assert.deepEqual(
          written.filter((f) => f.startsWith('output')),
          [],
          `${path} as ${format}`,
        );
        assert.ok(!existsSync(join(workDir, 'output.mp4')));
      }
    }
  });
});
