/**
 * The checked search's last resort: when the proxy misreads an image in both rounds, the output still meets
 * the target if any quality up to the range's ceiling does (the benchmark once shipped a screenshot's WebP at
 * 79.6 for a target of 80). The encoder here is a table from quality to whole-output score.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkedSearch } from '../../../src/processors/image/quality/checked-search.ts';

/** A proxy that always reads 81 at quality 70, whatever the aim: it misreads this image. */
const misreadingProxy = async () => ({
  quality: 70,
  score: 81,
  trials: [{ quality: 70, score: 81 }],
  stoppedBy: 'converged' as const,
});

function encoderScoring(scoreAt: (quality: number) => number) {
  const produced: number[] = [];
  return {
    produced,
    produce: async (quality: number) => {
      produced.push(quality);
      return { output: quality, size: quality * 100, score: scoreAt(quality) };
    },
  };
}

describe('checked search', () => {
  it('steps up to halfway to the ceiling when every round misses, and stops there once it passes', async () => {
    const encoder = encoderScoring((q) => (q >= 84 ? 80.5 : 79.6));
    const result = await checkedSearch({
      target: 80,
      search: misreadingProxy,
      produce: encoder.produce,
      ceiling: 98,
    });
    assert.equal(result.quality, 84);
    assert.ok(result.score >= 80);
    assert.deepEqual(encoder.produced, [70, 84]);
  });

  it('goes on to the ceiling when halfway still misses', async () => {
    const encoder = encoderScoring((q) => (q >= 95 ? 82.9 : 79.6));
    const result = await checkedSearch({
      target: 80,
      search: misreadingProxy,
      produce: encoder.produce,
      ceiling: 98,
    });
    assert.equal(result.quality, 98);
    assert.deepEqual(encoder.produced, [70, 84, 98]);
  });

  it('keeps the best-scoring miss only when even the ceiling misses', async () => {
    const encoder = encoderScoring((q) => 70 + q / 10);
    const result = await checkedSearch({
      target: 80,
      search: misreadingProxy,
      produce: encoder.produce,
      ceiling: 98,
    });
    assert.equal(result.quality, 98);
    assert.ok(result.score < 80);
  });

  it('adds no encode when a round passes', async () => {
    const encoder = encoderScoring(() => 80.4);
    const result = await checkedSearch({
      target: 80,
      search: misreadingProxy,
      produce: encoder.produce,
      ceiling: 98,
    });
    assert.equal(result.quality, 70);
    assert.deepEqual(encoder.produced, [70]);
  });

  it('tries the ceiling with full chroma when even the ceiling misses, and only then', async () => {
    const encoder = encoderScoring((q) => 70 + q / 10);
    const lastResort: number[] = [];
    const result = await checkedSearch({
      target: 80,
      search: misreadingProxy,
      produce: encoder.produce,
      ceiling: 98,
      lastResort: async (quality) => {
        lastResort.push(quality);
        return { output: -quality, size: 20_000, score: 84.2 };
      },
    });
    assert.deepEqual(lastResort, [98]);
    assert.equal(result.output, -98);
    assert.equal(result.score, 84.2);
    const passing = encoderScoring(() => 80.4);
    await checkedSearch({
      target: 80,
      search: misreadingProxy,
      produce: passing.produce,
      ceiling: 98,
      lastResort: async () => assert.fail('not needed when a round passes'),
    });
  });
});
