/**
 * Presso's SSIMULACRA 2 against the published reference: every pair of test/fixtures/ssimulacra2/ (real
 * corpus crops: photos, graphics, alpha, gAMA/cHRM- and iCCP-tagged PNGs; distortions from mozjpeg, cwebp,
 * avifenc, pngquant) decoded by Presso's decode and scored by Presso's metric, compared with the score
 * the reference `ssimulacra2` binary gave (bench/metric/make-pairs.ts wrote them into pairs.json).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { decodeRgb } from '../../../src/processors/shared/metric/pixels.ts';
import { scorePixels } from '../../../src/processors/shared/metric/score.ts';
import { ssimulacra2 } from '../../../src/processors/shared/metric/ssimulacra2.ts';

const dir = resolve(import.meta.dirname, '../../fixtures/ssimulacra2');
interface Pair {
  original: string;
  distorted: string;
  kind: string;
  made: string;
  reference: number;
}
const { pairs } = JSON.parse(readFileSync(join(dir, 'pairs.json'), 'utf8')) as { pairs: Pair[] };

async function score(pair: Pair): Promise<number> {
  const original = await decodeRgb(join(dir, pair.original));
  const distorted = await decodeRgb(join(dir, pair.distorted));
  // The crops are far below the scoring mosaic's size, so this is the whole-image score.
  return scorePixels(original, distorted);
}

test('the pair set covers photos, graphics, alpha and colour-tagged inputs with reference scores', () => {
  assert.ok(pairs.length >= 40, `${pairs.length} pairs`);
  for (const kind of ['photo', 'graphic', 'alpha', 'gAMA+cHRM', 'gAMA', 'iCCP'])
    assert.ok(
      pairs.some((p) => p.kind === kind),
      `no ${kind} pair`,
    );
  for (const p of pairs) assert.equal(typeof p.reference, 'number', `${p.distorted} has no reference score`);
});

test('Presso agrees with the reference ssimulacra2: mean |difference| ≤ 0.5, bias within ±0.2', async () => {
  const rows: { pair: Pair; ours: number; diff: number }[] = [];
  for (const pair of pairs) {
    const ours = await score(pair);
    rows.push({ pair, ours, diff: ours - pair.reference });
  }
  const mae = rows.reduce((s, r) => s + Math.abs(r.diff), 0) / rows.length;
  const bias = rows.reduce((s, r) => s + r.diff, 0) / rows.length;
  const worst = [...rows]
    .sort((a, b) => Math.abs(b.diff) - Math.abs(a.diff))
    .slice(0, 8)
    .map((r) => `${r.pair.distorted}: ours ${r.ours.toFixed(2)} ref ${r.pair.reference.toFixed(2)}`)
    .join('; ');
  const summary = `MAE ${mae.toFixed(3)}, bias ${bias.toFixed(3)} over ${rows.length} pairs; worst: ${worst}`;
  if (process.env.PRESSO_METRIC_REPORT) console.log(summary);
  assert.ok(mae <= 0.5, summary);
  assert.ok(Math.abs(bias) <= 0.2, summary);
});

test('identical images score exactly 100 (opaque, grey and alpha)', async () => {
  for (const file of ['coffee.png', 'page.png', 'logo.png', 'gama-chrm-coffee.png']) {
    const pixels = await decodeRgb(join(dir, file));
    assert.equal(ssimulacra2(pixels, pixels), 100, file);
  }
});
