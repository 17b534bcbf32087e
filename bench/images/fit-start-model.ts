/**
 * The model fit of bench/images/fit-start.ts, apart from its encoding: per format and level, least squares
 * of the search's answer on subsets of the start terms (start-features.ts), chosen by leave-one-image-out
 * cross-validation. Usage on its own (refits from the samples a run kept, encoding nothing):
 * node bench/images/fit-start-model.ts bench/results/start-samples-high.json … (one file per run of fit-start.ts)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LOSSY_RANGES, type LossyFormat } from '../../src/processors/image/encoders.ts';
import type { LossyLevel } from '../../src/processors/image/quality/targets.ts';
import { searchStart } from '../../src/processors/image/search-model.ts';
import { type StartFeatures, startTerms } from '../../src/processors/image/start-features.ts';

export interface Sample {
  image: string;
  variant: string;
  format: LossyFormat;
  level: LossyLevel;
  features: StartFeatures;
  answer: number;
}

interface Fitted {
  intercept: number;
  weights: Record<string, number>;
  /** Each term's range over the training samples: a prediction never extrapolates past it. */
  ranges: Record<string, [number, number]>;
}

const TERMS = ['logDetail', 'detail', 'flat', 'logChroma', 'chroma', 'entropy', 'exact'];
/** Most terms per model: ~64 samples per format and level do not support more. */
const MAX_TERMS = Number(process.env.START_MAX_TERMS ?? 3);
/** A term must cut the cross-validated error by this much (quality steps) to be kept. */
const TERM_COST = 0.05;

function subsets(items: string[], size: number): string[][] {
  if (size === 0) return [[]];
  return items.flatMap((item, i) => subsets(items.slice(i + 1), size - 1).map((rest) => [item, ...rest]));
}

/** Least squares with a tiny ridge (keeps a constant column of a subset solvable). */
function leastSquares(rows: number[][], ys: number[]): number[] {
  const k = rows[0]!.length;
  const a = Array.from({ length: k }, () => new Array<number>(k + 1).fill(0));
  rows.forEach((row, n) => {
    for (let i = 0; i < k; i++) {
      for (let j = 0; j < k; j++) a[i]![j]! += row[i]! * row[j]!;
      a[i]![k]! += row[i]! * ys[n]!;
    }
  });
  for (let i = 1; i < k; i++) a[i]![i]! += 1e-6;
  // Gauss–Jordan with partial pivoting.
  for (let c = 0; c < k; c++) {
    let pivot = c;
    for (let r = c + 1; r < k; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[pivot]![c]!)) pivot = r;
    [a[c], a[pivot]] = [a[pivot]!, a[c]!];
    for (let r = 0; r < k; r++) {
      if (r === c) continue;
      const factor = a[r]![c]! / a[c]![c]!;
      for (let j = c; j <= k; j++) a[r]![j]! -= factor * a[c]![j]!;
    }
  }
  return a.map((row, i) => row[k]! / row[i]!);
}

function fitTerms(samples: Sample[], terms: string[]): Fitted {
  const rows = samples.map((s) => {
    const t = startTerms(s.features);
    return [1, ...terms.map((name) => t[name]!)];
  });
  const beta = leastSquares(
    rows,
    samples.map((s) => s.answer),
  );
  const ranges = Object.fromEntries(
    terms.map((name, i) => {
      const values = rows.map((row) => row[i + 1]!);
      return [name, [Math.min(...values), Math.max(...values)] as [number, number]];
    }),
  );
  return {
    intercept: beta[0]!,
    weights: Object.fromEntries(terms.map((name, i) => [name, beta[i + 1]!])),
    ranges,
  };
}

export function predict(model: Fitted, features: StartFeatures, min: number, max: number): number {
  const t = startTerms(features);
  let value = model.intercept;
  for (const [name, weight] of Object.entries(model.weights)) {
    const [low, high] = model.ranges[name]!;
    value += weight * Math.min(high, Math.max(low, t[name]!));
  }
  return Math.min(max, Math.max(min, Math.round(value)));
}

/** Mean absolute error of the rounded start, each training image's samples predicted by a fit without them. */
function crossValidated(samples: Sample[], terms: string[], min: number, max: number): number {
  const images = [...new Set(samples.map((s) => s.image))];
  let error = 0;
  for (const image of images) {
    const model = fitTerms(
      samples.filter((s) => s.image !== image),
      terms,
    );
    for (const s of samples.filter((x) => x.image === image))
      error += Math.abs(predict(model, s.features, min, max) - s.answer);
  }
  return error / samples.length;
}

export function fitModel(samples: Sample[], formats: LossyFormat[], levels: LossyLevel[]) {
  const model: Record<string, Record<string, unknown>> = {};
  for (const format of formats) {
    model[format] = {};
    for (const level of levels) {
      const mine = samples.filter((s) => s.format === format && s.level === level);
      const { min, max } = LOSSY_RANGES[format][level];
      const fixed = searchStart(format, level).start;
      const fixedMae = mine.reduce((e, s) => e + Math.abs(fixed - s.answer), 0) / mine.length;
      let best = { terms: [] as string[], mae: Number.POSITIVE_INFINITY, cost: Number.POSITIVE_INFINITY };
      for (let size = 0; size <= MAX_TERMS; size++)
        for (const terms of subsets(TERMS, size)) {
          const mae = crossValidated(mine, terms, min, max);
          const cost = mae + TERM_COST * terms.length;
          if (cost < best.cost - 1e-9) best = { terms, mae, cost };
        }
      const fitted = fitTerms(mine, best.terms);
      const round = (x: number) => Math.round(x * 1e4) / 1e4;
      model[format][level] = {
        intercept: round(fitted.intercept),
        weights: Object.fromEntries(Object.entries(fitted.weights).map(([k, v]) => [k, round(v)])),
        ranges: Object.fromEntries(
          Object.entries(fitted.ranges).map(([k, [lo, hi]]) => [k, [round(lo), round(hi)]]),
        ),
        samples: mine.length,
        cvMeanAbsError: round(best.mae),
        fixedStartMeanAbsError: round(fixedMae),
      };
      console.log(
        `${format}/${level}: ${best.terms.join(' + ') || 'constant'}; start error ${fixedMae.toFixed(2)} (fixed ${fixed}) → ${best.mae.toFixed(2)} (cross-validated)`,
      );
    }
  }
  const images = new Set(samples.map((s) => s.image)).size;
  // Written off: the median start stays until a benchmark run shows a fit saves trials and keeps every
  // output's bytes (docs/benchmarks.md); set `enabled` to true to measure one (bench/images/start-bench.ts).
  return {
    enabled: false,
    fittedOn: { images, samples: samples.length / (formats.length * levels.length) },
    model,
  };
}

if (process.argv[1] === import.meta.filename) {
  const root = resolve(import.meta.dirname, '../..');
  const paths = process.argv.slice(2);
  const samples = paths.flatMap((path) => JSON.parse(readFileSync(path, 'utf8')) as Sample[]);
  const formats = [...new Set(samples.map((s) => s.format))];
  const levels = [...new Set(samples.map((s) => s.level))];
  const model = fitModel(samples, formats, levels);
  writeFileSync(join(root, 'src/processors/image/start-model.json'), `${JSON.stringify(model, null, 2)}\n`);
}
