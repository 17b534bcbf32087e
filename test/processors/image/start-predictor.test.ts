/**
 * The per-image start predictor (issue 25): the proxy's features read what they claim on images whose
 * answer is known (a flat grey, noise, a real photo), the shipped model (start-model.json, fitted on the
 * training corpus by bench/images/fit-start.ts) loads with an entry per lossy format at `high` and `medium`,
 * and its starts stay inside each encoder's range and near the corpus median on real photos. It ships off
 * (search-model.ts says why): the search then starts where it did before, at the corpus median. The search from
 * a predicted start still ends on the lowest passing quality (search-model.test.ts checks that for any start);
 * quality.test.ts, guarantee.test.ts and determinism.test.ts hold the outputs to their level.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { LOSSY_RANGES, type LossyFormat } from '../../../src/processors/image/encoders.ts';
import type { LossyLevel } from '../../../src/processors/image/quality/targets.ts';
import { predictedStart, searchStart } from '../../../src/processors/image/search-model.ts';
import { proxyFeatures, startTerms } from '../../../src/processors/image/start-features.ts';
import shipped from '../../../src/processors/image/start-model.json' with { type: 'json' };
import { decodeRgb, mosaicTiles, SEARCH_MOSAIC } from '../../../src/processors/shared/metric/pixels.ts';
import type { RgbImage } from '../../../src/processors/shared/metric/ssimulacra2.ts';
import { corpus } from '../../support/corpus.ts';
import { smallCorpus } from '../../support/small-corpus.ts';

const FORMATS: LossyFormat[] = ['jpeg', 'webp', 'avif'];
const LEVELS: LossyLevel[] = ['medium', 'high', 'ultra'];

function image(width: number, height: number, fill: (i: number) => number): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < data.length; i++) data[i] = fill(i);
  return { data, width, height, channels: 3 };
}

/** The search's proxy of `image`, as lossy-tuning.ts cuts it. */
const proxyOf = (pixels: RgbImage) =>
  mosaicTiles(pixels, SEARCH_MOSAIC) ?? { tiles: [pixels], cols: 1, rows: 1 };

describe('start features', () => {
  it('read a flat grey as flat, colourless and of one tone', () => {
    const f = proxyFeatures(proxyOf(image(64, 48, () => 128)));
    assert.deepEqual(f, { detail: 0, flat: 1, chroma: 0, entropy: 0, exact: 1 });
  });

  it('read noise as detailed, nowhere flat and of many tones', () => {
    let seed = 1;
    const noise = image(256, 256, () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed >> 23;
    });
    const f = proxyFeatures(proxyOf(noise));
    assert.ok(f.detail > 40 && f.flat < 0.05 && f.chroma > 40 && f.entropy > 7, JSON.stringify(f));
  });

  it('mark a mosaic proxy as not exact and give finite terms on a real photo', async () => {
    const photo = await decodeRgb(sharp(corpus.canonPhoto).autoOrient());
    const proxy = proxyOf(photo);
    assert.equal(proxy.tiles.length, 9);
    const f = proxyFeatures(proxy);
    assert.equal(f.exact, 0);
    assert.equal(proxyFeatures(proxy), f, 'computed once per proxy');
    for (const [name, value] of Object.entries(startTerms(f))) assert.ok(Number.isFinite(value), name);
  });
});

describe('start model', () => {
  it('is fitted for every lossy format at high and medium, with known terms', () => {
    const model = shipped.model as Record<string, Record<string, { intercept: number; weights: object }>>;
    const known = Object.keys(startTerms(proxyFeatures(proxyOf(image(32, 32, () => 0))))).sort();
    for (const format of FORMATS)
      for (const level of ['medium', 'high']) {
        const entry = model[format]?.[level];
        assert.ok(entry !== undefined, `${format}/${level} fitted`);
        assert.ok(Number.isFinite(entry.intercept));
        for (const name of Object.keys(entry.weights))
          assert.ok(known.includes(name), `${format}/${level} ${name}`);
      }
  });

  it('gives starts inside the range, near the corpus median on real photos', async () => {
    for (const path of [smallCorpus.canonPhoto, corpus.canonPhoto, corpus.astronaut, corpus.chelsea]) {
      const features = proxyFeatures(proxyOf(await decodeRgb(sharp(path).autoOrient().removeAlpha())));
      for (const format of FORMATS)
        for (const level of ['medium', 'high'] as const) {
          const median = searchStart(format, level).start;
          const start = predictedStart(format, level, features);
          const { min, max } = LOSSY_RANGES[format][level];
          const what = `${path} ${format}/${level}: ${start} (median ${median})`;
          assert.ok(start !== undefined && Number.isInteger(start) && start >= min && start <= max, what);
          assert.ok(Math.abs(start - median) <= 15, what);
        }
    }
  });

  it('is off as shipped: the search starts at the corpus median and computes no features', () => {
    assert.equal(shipped.enabled, false);
    const features = () => assert.fail('features computed while the predictor is off');
    for (const format of FORMATS)
      for (const level of LEVELS)
        assert.deepEqual(searchStart(format, level, features), searchStart(format, level));
  });

  it('without features gives the corpus median', () => {
    for (const format of FORMATS)
      for (const level of LEVELS) assert.ok(Number.isInteger(searchStart(format, level).start));
  });
});
