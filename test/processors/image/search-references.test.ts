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
  PREPARED_BYTES_PER_PIXEL,
  preparedBytes,
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
    // What a prepared reference holds per pixel is what the estimates count.
    const prepared = await prepareReference(photo);
    assert.ok(prepared.bytes() <= photo.width * photo.height * PREPARED_BYTES_PER_PIXEL);
    prepared.release();
  });

  it("the job's memory share counts the prepared proxy: both backgrounds of an image with alpha", () => {
    const proxy = 576 * 576;
    assert.equal(preparedBytes(proxy, 3), proxy * PREPARED_BYTES_PER_PIXEL);
    assert.equal(preparedBytes(proxy, 4), 2 * proxy * PREPARED_BYTES_PER_PIXEL);
  });
});
