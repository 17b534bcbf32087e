/**
 * The fitted search model (search-model.json, bench/images/fit-search.ts) covers every lossy format and
 * level with a start inside the encoder's range and a positive slope, and with it the search still ends
 * on the lowest passing quality: on curves as steep as the model assumes, and on much flatter and steeper
 * ones, only the number of trials changes. Work is counted in trials, never timed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LOSSY_RANGES, type LossyFormat } from '../../../src/processors/image/encoders.ts';
import { searchQuality } from '../../../src/processors/image/quality/search.ts';
import { type LossyLevel, SEARCH_LIMITS } from '../../../src/processors/image/quality/targets.ts';
import { searchStart } from '../../../src/processors/image/search-model.ts';

const FORMATS: LossyFormat[] = ['jpeg', 'webp', 'avif'];
const LEVELS: LossyLevel[] = ['medium', 'high', 'ultra'];

describe('search model', () => {
  it('gives every format and level a start inside its range and a positive slope', () => {
    for (const format of FORMATS)
      for (const level of LEVELS) {
        const { start, slope } = searchStart(format, level);
        const range = LOSSY_RANGES[format][level];
        assert.ok(
          Number.isInteger(start) && start >= range.min && start <= range.max,
          `${format}/${level} ${start}`,
        );
        assert.ok(slope > 0.1 && slope <= 2, `${format}/${level} slope ${slope}`);
      }
  });

  it('the search from the model ends on the lowest passing quality of a monotonic curve', async () => {
    for (const format of FORMATS)
      for (const level of LEVELS) {
        const { start, slope } = searchStart(format, level);
        const range = LOSSY_RANGES[format][level];
        // Answers a few steps either side of the start, on curves at the model's slope, half and twice it.
        for (const factor of [0.5, 1, 2])
          for (const offset of [-4, 0, 3]) {
            const answer = Math.min(range.max, Math.max(range.min + 1, start + offset));
            const perStep = slope * factor;
            // Crosses the target 80 between answer − 1 and answer.
            const score = (q: number) => 80 + perStep * (q - answer) + perStep / 2;
            let trials = 0;
            const result = await searchQuality({
              min: range.min,
              max: range.max,
              start,
              slope,
              target: 80,
              maxTrials: SEARCH_LIMITS.maxTrials,
              trial: async (q) => {
                trials++;
                return score(q);
              },
            });
            const what = `${format}/${level} answer ${answer} ×${factor}`;
            assert.equal(result.quality, answer, what);
            assert.ok(
              result.trials.some((t) => t.quality === answer - 1 && t.score < 80),
              `${what}: confirmed`,
            );
            if (factor === 1) assert.ok(trials <= 3, `${what}: ${trials} trials at the model's own slope`);
          }
      }
  });
});
