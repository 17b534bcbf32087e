/**
 * Scoring several encodes in one ffmpeg run (the search's trials) gives each the scores it gets alone, and
 * the SSIM ffmpeg's `ssim` gives with nothing else in the graph:
 * the shared reference is decoded once and split, and nothing in the graph may change what `ssim` sees
 * (with several encodes ffmpeg once negotiated RGB for the reference's split and scored a round trip).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { DEFAULT_VIDEO_LIMITS, videoDecodeBounds } from '../../../src/processors/video/config.ts';
import { type Footage, scoreEncoded, scoreEncodes } from '../../../src/processors/video/footage.ts';
import { ffmpeg, makeClip } from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-footage-');

/** Mean SSIM in dB of `encoded` against `reference` by ffmpeg alone: two inputs, frames paired by index. */
function standaloneDb(encoded: string, reference: string): number {
  const run = spawnSync('ffmpeg', [
    ...['-nostdin', '-hide_banner', '-i', encoded, '-i', reference, '-lavfi'],
    ...['[0:v]setpts=N/TB[a];[1:v]setpts=N/TB[b];[a][b]ssim', '-f', 'null', '-'],
  ]);
  const ssim = Number(/All:([\d.]+)/.exec(run.stderr.toString())?.[1]);
  return -10 * Math.log10(1 - ssim);
}

it('scores several encodes in one run as each alone', async () => {
  const workDir = await mkdtemp(join(scratch(), 'work-'));
  const source = makeClip(join(scratch(), 'clip.mp4'), { seconds: 1, audio: false });
  // The reference as the search writes it (FFV1 in Matroska), and two encodes of it at different CRFs.
  ffmpeg(['-i', source, '-c:v', 'ffv1', '-f', 'matroska', join(workDir, 'reference.mkv')]);
  for (const crf of [20, 34]) {
    ffmpeg([
      ...['-i', join(workDir, 'reference.mkv'), '-c:v', 'libx264', '-crf', String(crf)],
      ...['-f', 'matroska', join(workDir, `encode-${crf}.mkv`)],
    ]);
  }
  const run = {
    deadline: new Deadline(10 * 60_000),
    signal: new AbortController().signal,
    workDir,
    bounds: videoDecodeBounds(DEFAULT_VIDEO_LIMITS),
  };
  const reference: Footage = {
    path: 'reference.mkv',
    format: 'mkv',
    windows: [{ at: 0, length: undefined }],
    filters: 'null',
  };
  const size = { width: 128, height: 96, frames: 25, samples: 2 };
  const encodes = [20, 34].map((crf) => ({ path: `encode-${crf}.mkv`, format: 'mkv' }));
  const together = await scoreEncodes(encodes, reference, size, run);
  const alone = [];
  for (const encode of encodes) alone.push(await scoreEncoded(encode, reference, size, run));
  assert.equal(together.length, 2);
  for (const [i, scores] of together.entries()) {
    const single = alone[i];
    assert.ok(single !== undefined);
    assert.ok(Math.abs(scores.db - single.db) < 1e-9, `${scores.db} vs ${single.db}`);
    assert.ok(Math.abs(scores.ssimulacra2 - single.ssimulacra2) < 1e-9, JSON.stringify({ scores, single }));
    // And what ffmpeg's `ssim` gives with nothing else in the graph (its summary has 6 decimals).
    const crf = [20, 34][i];
    const plain = standaloneDb(join(workDir, `encode-${crf}.mkv`), join(workDir, 'reference.mkv'));
    assert.ok(Math.abs(scores.db - plain) < 0.01, `${scores.db} vs ${plain} alone`);
  }
  // The scores follow the CRF: the lower one is better on both measures.
  const [fine, coarse] = together;
  assert.ok(fine !== undefined && coarse !== undefined);
  assert.ok(fine.db > coarse.db && fine.ssimulacra2 > coarse.ssimulacra2, JSON.stringify(together));
});
