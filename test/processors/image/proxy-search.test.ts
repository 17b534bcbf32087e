/**
 * The quality search does less work for the same answer: the proxy of a small image is the image itself
 * (its score is the output's score), the search aims each trial at the expected crossing instead of
 * bisecting, and a second round reuses the first round's trials. Work is counted in trials, never timed.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { searchQuality } from '../../../src/processors/image/quality/search.ts';
import { applyTunedEncoder, type TuningReport } from '../../../src/processors/image/tuned-encoder.ts';
import { stitch } from '../../../src/processors/shared/metric/pixels.ts';
import { scoreOutput } from '../../../src/processors/shared/metric/score.ts';
import type { RgbImage } from '../../../src/processors/shared/metric/ssimulacra2.ts';
import { useScratch } from '../../support/scratch.ts';
import { smallCorpus } from '../../support/small-corpus.ts';
import { removeWorkDirs } from './run-image.ts';

const scratch = useScratch('presso-proxy-search-');
after(removeWorkDirs);

function image(width: number, height: number, fill: (i: number) => number): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < data.length; i++) data[i] = fill(i);
  return { data, width, height, channels: 3 };
}

describe('proxy of a small image', () => {
  it('stitches non-square tiles without padding: a one-tile grid is the image itself', () => {
    const tile = image(40, 30, (i) => i % 251);
    const one = stitch({ tiles: [tile], cols: 1, rows: 1 });
    assert.deepEqual([one.width, one.height], [40, 30]);
    assert.ok(Buffer.from(one.data).equals(Buffer.from(tile.data)));
    const right = image(40, 30, (i) => (i * 7) % 253);
    const two = stitch({ tiles: [tile, right], cols: 2, rows: 1 });
    assert.deepEqual([two.width, two.height], [80, 30]);
    // Last row: the left tile's last row, then the right tile's.
    const row = two.data.subarray(29 * 80 * 3, 30 * 80 * 3);
    assert.ok(Buffer.from(row.subarray(0, 120)).equals(Buffer.from(tile.data.subarray(29 * 120))));
    assert.ok(Buffer.from(row.subarray(120)).equals(Buffer.from(right.data.subarray(29 * 120))));
  });

  it("scores a 640×480 JPEG's output on the proxy exactly as on the whole image", async () => {
    const report: TuningReport = { trials: 0 };
    const pipeline = sharp(smallCorpus.canonPhoto).autoOrient().toColourspace('srgb');
    const output = await applyTunedEncoder(pipeline, 'jpeg', { level: 'ultra', hasAlpha: false }, report);
    const path = join(scratch(), 'ultra.jpg');
    await output.toFile(path);
    const whole = await scoreOutput(sharp(smallCorpus.canonPhoto).autoOrient(), path);
    assert.ok(report.outputScore !== undefined && report.proxyScore !== undefined);
    assert.ok(
      Math.abs(whole - report.outputScore) < 1e-9,
      `whole ${whole} vs reported ${report.outputScore}`,
    );
    assert.ok(whole >= 70, `ultra output scores ${whole}`);
  });
});

describe('quality search work', () => {
  it('finds the crossing of a near-linear score in fewer trials than bisection', async () => {
    // Like mozjpeg near the high target: ~0.65 points per quality step.
    const score = (q: number) => 30 + 0.65 * q;
    let calls = 0;
    const result = await searchQuality({
      min: 45,
      max: 95,
      start: 78,
      target: 81,
      maxTrials: 6,
      trial: async (q) => {
        calls++;
        return score(q);
      },
    });
    assert.equal(result.quality, 79); // lowest q with 30 + 0.65 q ≥ 81
    assert.equal(result.stoppedBy, 'converged');
    assert.ok(calls <= 3, `${calls} trials`);
  });
});

// format auto writes exactly what its chosen format writes alone (shared reference, probe trial reused):
// formats.test.ts, beside the same requests for each format alone.
