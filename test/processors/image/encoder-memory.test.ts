/**
 * Which whole-image encodes leave the service process (encoder-memory.ts against the default
 * PRESSO_IMAGE_ENCODE_IN_PROCESS): at 49 MP those that took `presso serve` past 512 MB (lossy WebP's
 * score decode, lossless WebP and JPEG, GIF, AVIF) and none that stayed under it (lossy JPEG, TIFF); a
 * 12 MP photo stays in process in every format (AVIF, the largest, ~240 MB). The output's pixels follow the
 * crop and the resize.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_IMAGE_LIMITS } from '../../../src/processors/image/config.ts';
import { encodeWorkingSet, outputPixels } from '../../../src/processors/image/encoder-memory.ts';
import type { CompressionLevel } from '../../../src/processors/image/params.ts';

const budget = DEFAULT_IMAGE_LIMITS.encodeInProcessBytes;
const inChild = (
  format: 'jpeg' | 'webp' | 'avif' | 'gif' | 'tiff',
  level: CompressionLevel,
  pixels: number,
) => encodeWorkingSet(format, { level, hasAlpha: false }, pixels) > budget;

describe('image encoder memory: what leaves the service process', () => {
  it('sends the 49 MP encodes that were over 512 MB to the child, and only those', () => {
    const pixels = 7000 * 7000;
    for (const level of ['medium', 'high', 'ultra'] as const) {
      assert.equal(inChild('jpeg', level, pixels), false, `jpeg ${level}`);
      assert.equal(inChild('webp', level, pixels), true, `webp ${level}`);
      assert.equal(inChild('avif', level, pixels), true, `avif ${level}`);
      assert.equal(inChild('gif', level, pixels), true, `gif ${level}`);
      assert.equal(inChild('tiff', level, pixels), false, `tiff ${level}`);
    }
    for (const format of ['jpeg', 'webp', 'avif', 'gif'] as const) {
      assert.equal(inChild(format, 'lossless', pixels), true, `${format} lossless`);
    }
    // The JPEG search's last resort (4:4:4) needs mozjpeg's larger working set.
    const fullChroma = { level: 'high' as const, hasAlpha: false, fullChroma: true };
    assert.ok(encodeWorkingSet('jpeg', fullChroma, pixels) > budget);
  });

  it('keeps a 12 MP photo in process in every format', () => {
    for (const format of ['jpeg', 'webp', 'avif', 'gif', 'tiff'] as const) {
      for (const level of ['high', 'lossless'] as const) {
        assert.equal(inChild(format, level, 4000 * 3000), false, `${format} ${level}`);
      }
    }
  });

  it('counts the pixels the output will have', () => {
    const meta = { width: 7000, height: 7000 };
    assert.equal(outputPixels(meta, 1, { resize: undefined }), 49_000_000);
    assert.equal(
      outputPixels({ width: 100, height: 300, pageHeight: 100 }, 3, { resize: undefined }),
      30_000,
    );
    assert.equal(outputPixels(meta, 1, { crop: { width: 10, height: 20 }, resize: undefined }), 200);
    const fit = { mode: 'fit', width: 1000, height: 500, gravity: 'center', upscale: false } as const;
    assert.equal(outputPixels(meta, 1, { resize: fit }), 500 * 500);
    const auto = { mode: 'auto', width: 700, height: undefined, upscale: false } as const;
    assert.equal(outputPixels(meta, 1, { resize: auto }), 700 * 700);
    const small = { width: 100, height: 100 };
    assert.equal(outputPixels(small, 1, { resize: { ...auto, width: 1000 } }), 100 * 100);
    assert.equal(outputPixels(small, 1, { resize: { ...auto, width: 1000, upscale: true } }), 1000 * 1000);
    const exact = { mode: 'exact', width: 30, height: 40, upscale: false } as const;
    assert.equal(outputPixels(meta, 1, { resize: exact }), 1200);
  });
});
