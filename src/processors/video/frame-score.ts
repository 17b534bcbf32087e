/**
 * SSIMULACRA 2 of one sampled frame: the middle of a segment, decoded from the lossless reference and from
 * a trial encode to 8-bit RGB by ffmpeg, scored by the project's own metric (the native addon, off the
 * event loop). SSIM sees structure; SSIMULACRA 2 also sees colour and banding, which SSIM misses.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import type { MediaRun } from '../ffmpeg/decode-bounds.ts';
import { safeInputArgs } from '../ffmpeg/demuxers.ts';
import { runFfmpeg } from '../ffmpeg/run-ffmpeg.ts';
import { measureSsimulacra2 } from '../shared/metric/score.ts';

async function frameAt(file: string, seconds: number, out: string, run: MediaRun): Promise<Uint8Array> {
  await runFfmpeg(
    [
      // FFV1 and the trial are in Matroska with an index: an input seek decodes exactly to this frame.
      ...(seconds > 0 ? ['-ss', seconds.toFixed(3)] : []),
      ...safeInputArgs('mkv', file, run.bounds),
      '-frames:v',
      '1',
      '-pix_fmt',
      'rgb24',
      '-f',
      'rawvideo',
      out,
    ],
    run,
  );
  return new Uint8Array(await readFile(join(run.workDir, out)));
}

export async function frameSsimulacra2(
  reference: string,
  encoded: string,
  at: number,
  size: { width: number; height: number },
  run: MediaRun,
): Promise<number> {
  let ref = await frameAt(reference, at, `${reference}.rgb`, run);
  let enc = await frameAt(encoded, at, `${encoded}.rgb`, run);
  // A segment of a frame or two (a one-frame video, a very short trim) has no frame past its middle's
  // time: its first frame is the sample then.
  if (ref.length === 0 || enc.length === 0) {
    ref = await frameAt(reference, 0, `${reference}.rgb`, run);
    enc = await frameAt(encoded, 0, `${encoded}.rgb`, run);
  }
  if (ref.length === 0)
    throw new UnprocessableInputError('The video has no frames to encode in the requested part.');
  const image = (data: Uint8Array) => ({
    data,
    width: size.width,
    height: size.height,
    channels: 3 as const,
  });
  if (ref.length !== size.width * size.height * 3 || enc.length !== ref.length) {
    throw new Error(`sampled frame sizes differ: ${ref.length} and ${enc.length}`);
  }
  return measureSsimulacra2(image(ref), image(enc));
}
