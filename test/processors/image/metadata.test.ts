import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { corpus } from '../../support/corpus.ts';
import { smallCorpus } from '../../support/small-corpus.ts';
import { removeWorkDirs, runImage } from './run-image.ts';

after(removeWorkDirs);

describe('image processor: metadata', () => {
  it('describes the input photo with EXIF and its GPS position', async () => {
    const result = await runImage(corpus.gpsPhoto, { resize: { width: 200 } }, { wantMetadata: true });
    const meta = result.metadata as Record<string, unknown> & { exif: Record<string, unknown> };
    assert.equal(meta.width, 4000);
    assert.equal(meta.height, 3000);
    assert.equal(meta.format, 'jpeg');
    assert.equal(meta.frames, 1);
    assert.equal(meta.hasAlpha, false);
    assert.equal(meta.orientation, 1);
    assert.equal(meta.exif.Make, 'Xiaomi');
    assert.equal(meta.exif.Model, 'Mi A3');
    assert.equal(meta.exif.DateTimeOriginal, '2020-08-27T23:16:12');
    assert.equal(meta.exif.FNumber, 1.79);
    // Binary tags and directory pointers are not readable values.
    assert.equal(meta.exif.ExifVersion, undefined);
    assert.equal(meta.exif.GPSTag, undefined);
    const gps = meta.gps as { latitude: number; longitude: number };
    // 15° 50′ 7.9944″ S, 48° 0′ 56.8476″ W
    assert.ok(Math.abs(gps.latitude - -15.835554) < 1e-5, String(gps.latitude));
    assert.ok(Math.abs(gps.longitude - -48.015791) < 1e-5, String(gps.longitude));
    assert.doesNotThrow(() => JSON.stringify(meta));
  });

  it('reports the EXIF orientation and the displayed size', async () => {
    const rotated = await runImage(corpus.rotatedPhoto, { resize: { width: 100 } }, { wantMetadata: true });
    const meta = rotated.metadata as Record<string, unknown>;
    assert.deepEqual([meta.orientation, meta.width, meta.height], [3, 4000, 3000]);
  });

  it('has no GPS for photos without a position', async () => {
    // The 640×480 crop keeps the camera's EXIF; the facts are the input's, so the outputs are kept small.
    const canon = await runImage(smallCorpus.canonPhoto, { compression: 'ultra' }, { wantMetadata: true });
    const meta = canon.metadata as { exif: Record<string, unknown>; gps?: unknown };
    assert.equal(meta.exif.Make, 'Canon');
    assert.equal(meta.gps, undefined);
    assert.equal(Object.hasOwn(meta, 'gps'), false);
    const png = await runImage(corpus.chelsea, { resize: { width: 100 } }, { wantMetadata: true });
    assert.equal((png.metadata as Record<string, unknown>).gps, undefined);
  });

  it('counts the frames of an animation and reports one frame size', async () => {
    const result = await runImage(corpus.animatedGif, {}, { wantMetadata: true });
    const meta = result.metadata as Record<string, unknown>;
    assert.deepEqual([meta.width, meta.height, meta.frames, meta.hasAlpha], [14, 25, 24, true]);
    assert.equal(meta.gps, undefined);
    assert.deepEqual(meta.exif, {});
  });

  it('leaves metadata out unless asked', async () => {
    const result = await runImage(corpus.chelsea, { resize: { width: 100 } });
    assert.equal(result.metadata, undefined);
  });
});

describe('image processor: colour and profile facts', () => {
  it('reports the ICC description, bit depth, IPTC/XMP presence and colour space', async () => {
    const canon = await runImage(corpus.canonPhoto, { resize: { width: 100 } }, { wantMetadata: true });
    const meta = canon.metadata as Record<string, unknown>;
    assert.deepEqual(meta.icc, { present: true, description: 'GIMP built-in sRGB' });
    assert.deepEqual(
      [meta.bitDepth, meta.space, meta.iptc, meta.xmp],
      [8, 'srgb', { present: false }, { present: false }],
    );
    const png = await runImage(corpus.alphaPng, { resize: { width: 100 } }, { wantMetadata: true });
    const pngMeta = png.metadata as Record<string, unknown>;
    assert.deepEqual([pngMeta.hasAlpha, pngMeta.icc, pngMeta.gps], [true, { present: false }, undefined]);
  });
});
