/**
 * Every fixture pair of test/fixtures/ssimulacra2 scored by the native metric and by the TypeScript port,
 * against the published reference's score (pairs.json): mean and max |difference| of each, and native
 * minus TypeScript. Run: node bench/metric/compare-pairs.ts [kind] (only pairs of that kind, e.g. alpha;
 * docs/benchmarks.md keeps the numbers).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decodeRgb } from '../../src/processors/shared/metric/pixels.ts';
import { ssimulacra2 } from '../../src/processors/shared/metric/ssimulacra2.ts';
import { ssimulacra2Native } from '../../src/processors/shared/metric/ssimulacra2-native.ts';

const dir = resolve(import.meta.dirname, '../../test/fixtures/ssimulacra2');
const { pairs } = JSON.parse(readFileSync(join(dir, 'pairs.json'), 'utf8')) as {
  pairs: { original: string; distorted: string; kind: string; reference: number }[];
};
const kind = process.argv[2];
const rows: { name: string; kind: string; native: number; ts: number; reference: number }[] = [];
for (const pair of pairs) {
  if (kind !== undefined && pair.kind !== kind) continue;
  const original = await decodeRgb(join(dir, pair.original));
  const distorted = await decodeRgb(join(dir, pair.distorted));
  rows.push({
    name: pair.distorted,
    kind: pair.kind,
    native: await ssimulacra2Native(original, distorted),
    ts: ssimulacra2(original, distorted),
    reference: pair.reference,
  });
}
function summary(label: string, diffs: number[]): string {
  const abs = diffs.map(Math.abs);
  const mean = abs.reduce((s, v) => s + v, 0) / abs.length;
  const bias = diffs.reduce((s, v) => s + v, 0) / diffs.length;
  const worst = abs.indexOf(Math.max(...abs));
  return `${label}: mean |diff| ${mean.toFixed(4)}, bias ${bias.toFixed(4)}, max |diff| ${abs[worst]!.toFixed(4)} (${diffs[worst]! > 0 ? '+' : ''}${diffs[worst]!.toFixed(4)})`;
}
for (const r of rows)
  console.log(
    `${r.name.padEnd(40)} ${r.kind.padEnd(10)} ref ${r.reference.toFixed(3)} native ${r.native.toFixed(3)} ts ${r.ts.toFixed(3)} native−ts ${(r.native - r.ts).toFixed(4)}`,
  );
console.log(
  summary(
    'native − reference',
    rows.map((r) => r.native - r.reference),
  ),
);
console.log(
  summary(
    'TypeScript − reference',
    rows.map((r) => r.ts - r.reference),
  ),
);
console.log(
  summary(
    'native − TypeScript',
    rows.map((r) => r.native - r.ts),
  ),
);
// Pairs without colour tags: what remains is the metric's arithmetic, not the 8-bit sRGB conversion.
const untagged = rows.filter((r) => ['photo', 'graphic', 'alpha'].includes(r.kind));
console.log(
  summary(
    `${untagged.length} untagged: native − reference`,
    untagged.map((r) => r.native - r.reference),
  ),
);
