/** The loudness correction's rule: within tolerance nothing, else the drift back, capped by the true peak. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compensatingGain } from '../../../src/processors/audio/loudness.ts';

test('the compensating gain undoes the drift, within limits', () => {
  const at = (integrated: number, truePeak = 0.5) => ({ integrated, truePeak });
  assert.equal(compensatingGain(at(-23.3), at(-23.6)), 0); // 0.3 LU: left alone
  assert.equal(compensatingGain(at(-23.3), at(-25.1)), 1.8); // turned down by Opus: back up
  assert.equal(compensatingGain(at(-23.3), at(-22.0)), -1.3); // turned up: back down
  assert.equal(compensatingGain(at(-10), at(-20)), 4); // capped at 4 dB
  // A peak at -1 dBTP leaves 0.5 dB of room under the -0.5 dBTP ceiling.
  assert.equal(compensatingGain(at(-23.3), at(-25.1, 10 ** (-1 / 20))), 0);
  assert.equal(compensatingGain(at(-23.3), at(-25.1, 10 ** (-2 / 20))), 1.5);
  assert.equal(compensatingGain(at(Number.NEGATIVE_INFINITY), at(-80)), 0); // silence
});
