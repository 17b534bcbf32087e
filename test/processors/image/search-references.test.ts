/**
 * The searches' prepared references (quality/search-references.ts): a search scores its proxy trials and
 * output checks against references prepared once, gets the one-shot numbers, and frees them when it ends,
 * also when the job is stopped in the middle.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import {
  preparedBytes,
  preparedReferenceBytes,
  SearchReferences,
} from '../../../src/processors/image/quality/search-references.ts';
import { referencePixels, scoreWholeOutput } from '../../../src/processors/image/quality/whole-score.ts';
import { applyTunedEncoder, type TuningReport } from '../../../src/processors/image/tuned-encoder.ts';
import { decodeRgb } from '../../../src/processors/shared/metric/pixels.ts';
import { prepareReference } from '../../../src/processors/shared/metric/score.ts';
import { nativeHeldReferences } from '../../../src/processors/shared/metric/ssimulacra2-native.ts';
import { corpus } from '../../support/corpus.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-search-references-');

describe('prepared references in the quality search', () => {
  it('the output check reads the one-shot score, and the search frees its references', async () => {
    const report: TuningReport = { trials: 0 };
    const pipeline = sharp(corpus.canonPhoto).autoOrient().toColourspace('srgb');
    const output = await applyTunedEncoder(pipeline, 'webp', { level: 'high', hasAlpha: false }, report);
    assert.equal(nativeHeldReferences(), 0, 'references left prepared after the search');
    const path = join(scratch(), 'high.webp');
    await output.toFile(path);
    const reference = await referencePixels(pipeline, false);
    const oneShot = await scoreWholeOutput(reference, await decodeRgb(path));
    assert.equal(report.outputScore, oneShot);
    assert.ok(report.trials >= 2, `${report.trials} trials`);
  });

  it('a job stopped while its references are prepared frees them', async () => {
    const reason = new Error('stopped');
    const controller = new AbortController();
    // Stops the job as soon as its first reference is prepared (event-loop turns, not time).
    const watch = () => {
      if (nativeHeldReferences() > 0) controller.abort(reason);
      else if (!controller.signal.aborted) setImmediate(watch);
    };
    setImmediate(watch);
    const pipeline = sharp(corpus.canonPhoto).autoOrient().toColourspace('srgb');
    await assert.rejects(
      applyTunedEncoder(pipeline, 'jpeg', { level: 'high', hasAlpha: false, signal: controller.signal }),
      (error: unknown) => error === reason,
    );
    assert.ok(controller.signal.aborted);
    assert.equal(nativeHeldReferences(), 0);
  });

  it('a release during a preparation frees the reference once it is prepared', async () => {
    const photo = await decodeRgb(corpus.canonPhoto);
    const references = new SearchReferences();
    const score = references.scoreProxy(() => photo, photo);
    references.release();
    assert.equal(await score, 100);
    // The release waits for the preparation's promise: one more turn of its callbacks.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(nativeHeldReferences(), 0);
    await assert.rejects(
      references.scoreProxy(() => photo, photo),
      /released|search has ended/,
    );
  });

  it("the job's memory share counts the prepared proxy as the addon allocates it", async () => {
    for (const [width, height] of [
      [576, 576],
      [640, 480],
      [1280, 960],
      [2400, 1800],
      [33, 9],
      [8, 8],
      [7, 300],
    ] as const) {
      const prepared = await prepareReference({
        data: new Uint8Array(width * height * 3),
        width,
        height,
        channels: 3,
      });
      assert.equal(preparedReferenceBytes(width, height), prepared.bytes(), `${width}×${height}`);
      prepared.release();
    }
    assert.equal(preparedBytes(576, 576, 4), 2 * preparedBytes(576, 576, 3), 'both backgrounds with alpha');
  });
});
