/**
 * The same H.264 encode gives the same bytes when several run at once on a busy host: x264's threaded
 * lookahead did not (a 320×240 clip, 6 encodes at once: 2 different outputs) until it was turned off
 * (encoders.ts). Small frames are where it showed; 4 encodes start together here.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { DEFAULT_VIDEO_LIMITS, videoDecodeBounds } from '../../../src/processors/video/config.ts';
import { encodeVideo } from '../../../src/processors/video/encode.ts';
import { duration, FAST_ENCODE, makeClip, probe, videoStream } from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-video-determinism-');

it('encodes a 320×240 clip to the same bytes four times at once', async () => {
  // The input written fast (x264 ultrafast): what is compared is the product's encode of it.
  const clip = makeClip(join(scratch(), 'clip.mp4'), {
    ...{ seconds: 10, width: 320, height: 240, audio: false },
    encode: FAST_ENCODE,
  });
  const encode = async (i: number) => {
    const workDir = await mkdtemp(join(scratch(), `work-${i}-`));
    const output = join(workDir, 'out.mp4');
    const run = {
      deadline: new Deadline(10 * 60_000),
      signal: new AbortController().signal,
      workDir,
      inputs: [clip],
      bounds: videoDecodeBounds(DEFAULT_VIDEO_LIMITS),
    };
    await encodeVideo(
      {
        ...{ inputPath: clip, inputFormat: 'mp4', start: 0, duration: undefined, filters: ['setsar=1'] },
        ...{ outputPixels: 320 * 240, format: 'mp4', codec: 'h264', crf: 23, output },
        audio: { kind: 'none' },
      },
      run,
      {},
    );
    return output;
  };
  const outputs = await Promise.all([0, 1, 2, 3].map(encode));
  const hashes = new Set<string>();
  for (const output of outputs) {
    hashes.add(
      createHash('sha256')
        .update(await readFile(output))
        .digest('hex'),
    );
  }
  assert.equal(hashes.size, 1, `${hashes.size} different outputs`);
  // The four are the same bytes: one ffprobe describes them all.
  const [output = ''] = outputs;
  const video = videoStream(probe(output));
  assert.equal(video?.width, 320);
  assert.equal(video?.height, 240);
  assert.ok(Math.abs(duration(output) - 10) < 0.1, String(duration(output)));
});
