import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { ValidationError } from '../../../src/errors/catalog.ts';
import { corpus } from '../../support/corpus.ts';
import { decode, psnr } from '../../support/images.ts';
import { smallCorpus } from '../../support/small-corpus.ts';
import { processor, removeWorkDirs, runImage } from './run-image.ts';

after(removeWorkDirs);

/**
 * Geometry is judged on the pixels, and a lossless PNG holds them exactly: the PSNR checks compare the
 * geometry alone, for 0.1 CPU-s a run where the palette search of `high` (the default level) took ~1.
 * JPEG and lossy outputs are geometry's subject where their format matters (orientation, pad's white).
 */
const LOSSLESS = { format: 'png', compression: 'lossless' } as const;

describe('image processor: orientation and resize', () => {
  // The 640×480 crop of the phone photo keeps its EXIF Orientation 3: the geometry is the same at 1/40 the pixels.
  it('applies EXIF orientation (rotate 180) to the pixels', async () => {
    const input = await decode(smallCorpus.rotatedPhoto);
    assert.equal(input.orientation, 3);
    const result = await runImage(smallCorpus.rotatedPhoto, { resize: { width: 400 } });
    const out = await decode(result.path);
    assert.deepEqual([out.width, out.height, out.orientation], [400, 300, undefined]);
    const rotated = sharp(smallCorpus.rotatedPhoto).autoOrient();
    const unrotated = sharp(smallCorpus.rotatedPhoto);
    const matchRotated = await psnr(result.path, rotated);
    const matchUnrotated = await psnr(result.path, unrotated);
    assert.ok(matchRotated > 35, `PSNR against the rotated reference: ${matchRotated}`);
    assert.ok(matchRotated > matchUnrotated + 10, `${matchRotated} vs unrotated ${matchUnrotated}`);
  });

  it('resize auto with only a width keeps the aspect ratio', async () => {
    const result = await runImage(smallCorpus.gpsPhoto, { resize: { width: 500 } });
    assert.equal(result.transformed, true);
    const out = await decode(result.path);
    assert.deepEqual([out.width, out.height], [500, 375]);
    assert.ok((await psnr(result.path, smallCorpus.gpsPhoto)) > 35);
  });

  it('resize auto with a box fits inside it', async () => {
    const out = await decode(
      (await runImage(corpus.chelsea, { ...LOSSLESS, resize: { width: 200, height: 200 } })).path,
    );
    assert.deepEqual([out.width, out.height], [200, 133]);
  });

  it('resize fit gives exactly the box, cropped around the centre', async () => {
    const result = await runImage(corpus.chelsea, {
      ...LOSSLESS,
      resize: { width: 150, height: 150, mode: 'fit' },
    });
    const out = await decode(result.path);
    assert.deepEqual([out.width, out.height], [150, 150]);
    const reference = sharp(corpus.chelsea).resize(150, 150, { fit: 'cover' });
    assert.ok((await psnr(result.path, reference)) > 35);
  });

  it('resize fit with gravity crops that side', async () => {
    const west = await runImage(corpus.chelsea, {
      ...LOSSLESS,
      resize: { width: 100, height: 100, mode: 'fit', gravity: 'west' },
    });
    const reference = sharp(corpus.chelsea).resize(100, 100, { fit: 'cover', position: 'west' });
    const centre = sharp(corpus.chelsea).resize(100, 100, { fit: 'cover' });
    assert.ok((await psnr(west.path, reference)) > (await psnr(west.path, centre)) + 5);
  });

  it('resize fit with attention gravity gives the box', async () => {
    const result = await runImage(corpus.astronaut, {
      ...LOSSLESS,
      resize: { width: 120, height: 60, mode: 'fit', gravity: 'attention' },
    });
    const out = await decode(result.path);
    assert.deepEqual([out.width, out.height], [120, 60]);
  });

  it('resizes every frame of an animated GIF', async () => {
    const result = await runImage(corpus.animatedGif, { resize: { height: 50 } });
    const out = await decode(result.path);
    assert.deepEqual([out.format, out.frames, out.width, out.height], ['gif', 24, 28, 50]);
  });
});

describe('image processor: checkParams', () => {
  const check = (params: Record<string, unknown>, namespace = 'image') =>
    processor.checkParams!(params, namespace);

  it('accepts valid combinations', () => {
    assert.deepEqual(check({}), []);
    assert.deepEqual(check({ resize: { width: 10 } }), []);
    assert.deepEqual(check({ resize: { height: 10, mode: 'auto' } }), []);
    assert.deepEqual(check({ resize: { width: 10, height: 10, mode: 'fit' } }), []);
  });

  it('auto (or no mode) without width and height is an error on the resize field', () => {
    const expected = [
      { field: 'image.resize', message: 'resize mode auto needs at least one of width or height' },
    ];
    assert.deepEqual(check({ resize: {} }), expected);
    assert.deepEqual(check({ resize: { mode: 'auto' } }), expected);
  });

  it('fit needs both dimensions, and uses the namespace given', () => {
    const errors = check({ resize: { width: 10, mode: 'fit' } }, 'data.image');
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.field, 'data.image.resize');
  });

  it('tolerates schema-invalid values (the schema reports those)', () => {
    assert.deepEqual(check({ resize: 'big' }), []);
    assert.deepEqual(check({ resize: null }), []);
  });

  it('process refuses params that break the rules', async () => {
    await assert.rejects(runImage(corpus.chelsea, { resize: { mode: 'fit', width: 5 } }), ValidationError);
  });

  it('declares a closed schema at every level', () => {
    const schema = processor.paramsSchema as {
      additionalProperties?: boolean;
      properties: Record<string, unknown>;
    };
    assert.equal(schema.additionalProperties, false);
    const resize = schema.properties.resize as { additionalProperties?: boolean };
    assert.equal(resize.additionalProperties, false);
  });
});

describe('image processor: resize modes, crop, rotate, flip', () => {
  it('exact stretches to the box', async () => {
    const result = await runImage(corpus.chelsea, {
      ...LOSSLESS,
      resize: { width: 100, height: 100, mode: 'exact' },
    });
    const out = await decode(result.path);
    assert.deepEqual([out.width, out.height], [100, 100]);
    assert.ok((await psnr(result.path, sharp(corpus.chelsea).resize(100, 100, { fit: 'fill' }))) > 35);
  });

  it('pad fits inside and fills transparent (PNG), white (JPEG) or the given colour', async () => {
    const box = { width: 200, height: 200, mode: 'pad' } as const;
    const png = await runImage(corpus.chelsea, { format: 'png', compression: 'lossless', resize: box });
    const px = async (path: string, x: number, y: number) => {
      const { data, info } = await sharp(path).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      assert.deepEqual([info.width, info.height], [200, 200]);
      const o = (y * info.width + x) * 4;
      return [...data.subarray(o, o + 4)];
    };
    assert.equal((await px(png.path, 100, 2))[3], 0, 'band above the image is transparent');
    assert.equal((await px(png.path, 100, 100))[3], 255, 'the image itself is opaque');
    const jpeg = await runImage(corpus.chelsea, { format: 'jpeg', resize: box });
    assert.ok(
      (await px(jpeg.path, 100, 2)).slice(0, 3).every((v) => v > 245),
      'white band',
    );
    const red = await runImage(corpus.chelsea, { ...LOSSLESS, resize: { ...box, background: '#ff0000' } });
    const [r, g, b] = await px(red.path, 100, 2);
    assert.ok(r! > 240 && g! < 15 && b! < 15, `band is ${r},${g},${b}`);
  });

  it('upscale false never enlarges', async () => {
    // JPEG out: the geometry is the same for every format, and a PNG's lossy search costs ~10× a JPEG's.
    const out = await decode(
      (await runImage(corpus.chelsea, { format: 'jpeg', resize: { width: 2000, upscale: false } })).path,
    );
    assert.deepEqual([out.width, out.height], [451, 300]);
    const up = await decode(
      (await runImage(corpus.chelsea, { format: 'jpeg', resize: { width: 902 } })).path,
    );
    assert.deepEqual([up.width, up.height], [902, 600]);
  });

  it('orientation → crop → rotate → flip/flop → resize, as staged operations would do', async () => {
    // A 180°-oriented phone photo, made small first so staging the reference is quick.
    const small = await sharp(smallCorpus.rotatedPhoto)
      .resize(400)
      .keepExif()
      .jpeg({ quality: 95 })
      .toBuffer();
    assert.equal((await sharp(small).metadata()).orientation, 3);
    const dir = await mkdtemp(join(tmpdir(), 'presso-geometry-'));
    const path = join(dir, 'oriented.jpeg');
    await sharp(small).keepExif().toFile(path);
    const crop = { x: 30, y: 20, width: 250, height: 180 };
    for (const rotate of [90, 180, 270] as const) {
      for (const [flip, flop] of [
        [true, false],
        [false, true],
      ] as const) {
        const result = await runImage(path, {
          crop,
          rotate,
          flip,
          flop,
          resize: { width: 90 },
          ...LOSSLESS,
        });
        let staged = await sharp(path).autoOrient().png().toBuffer();
        staged = await sharp(staged).extract({ left: 30, top: 20, width: 250, height: 180 }).png().toBuffer();
        staged = await sharp(staged).rotate(rotate).png().toBuffer();
        if (flip) staged = await sharp(staged).flip().png().toBuffer();
        if (flop) staged = await sharp(staged).flop().png().toBuffer();
        const out = await decode(result.path);
        const h = rotate === 180 ? 65 : 125;
        assert.deepEqual([out.width, out.height], [90, h], `${rotate} ${flip} ${flop}`);
        const score = await psnr(result.path, staged);
        assert.ok(score > 30, `rotate ${rotate} flip ${flip} flop ${flop}: PSNR ${score}`);
      }
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('crop outside the oriented image is a 422 on image.crop naming the size', async () => {
    await assert.rejects(
      runImage(corpus.chelsea, { crop: { x: 400, y: 0, width: 100, height: 10 } }),
      (e: unknown) => {
        assert.ok(e instanceof ValidationError);
        assert.equal(e.errors?.[0]?.field, 'image.crop');
        assert.match(e.errors?.[0]?.message ?? '', /451×300/);
        return true;
      },
    );
  });

  it('crops and mirrors every frame of an animation', async () => {
    const result = await runImage(corpus.animatedGif, {
      crop: { x: 2, y: 3, width: 10, height: 20 },
      flop: true,
    });
    const out = await decode(result.path);
    assert.deepEqual([out.frames, out.width, out.height], [24, 10, 20]);
    // Not animated output: the first frame alone.
    const png = await decode((await runImage(corpus.animatedGif, { rotate: 90, format: 'png' })).path);
    assert.deepEqual([png.width, png.height, png.frames], [25, 14, 1]);
  });

  for (const format of ['gif', 'webp'] as const) {
    it(`rotates and flips each frame of an animation in place (${format} out), timing kept`, async () => {
      const crop = { x: 1, y: 2, width: 12, height: 20 };
      const result = await runImage(corpus.animatedGif, { format, crop, rotate: 90, flip: true });
      const out = await sharp(result.path).metadata();
      const input = await sharp(corpus.animatedGif).metadata();
      assert.deepEqual([out.format, out.pages, out.width, out.height], [format, 24, 20, 12]);
      assert.deepEqual(out.delay, input.delay);
      for (const page of [0, 7, 23]) {
        // The staged operations on that frame alone, in the API's order.
        const frame = await sharp(corpus.animatedGif, { page })
          .extract({ left: crop.x, top: crop.y, width: crop.width, height: crop.height })
          .png()
          .toBuffer();
        const expected = sharp(await sharp(frame).rotate(90).png().toBuffer()).flip();
        const actual = await sharp(result.path, { page }).png().toBuffer();
        const score = await psnr(actual, expected);
        assert.ok(score > 28, `frame ${page}: PSNR ${score.toFixed(1)}`);
        // A frame taken from elsewhere in the animation would not match as well.
        const other = sharp(
          await sharp(corpus.animatedGif, { page: (page + 12) % 24 })
            .extract({ left: crop.x, top: crop.y, width: crop.width, height: crop.height })
            .rotate(90)
            .png()
            .toBuffer(),
        ).flip();
        assert.ok(score > (await psnr(actual, other)), `frame ${page} is in its place`);
      }
    });
  }

  it('checkParams: one entry per problem with the exact field path', () => {
    const check = (params: Record<string, unknown>) => processor.checkParams!(params, 'image');
    assert.deepEqual(check({ resize: { width: 10, mode: 'pad', gravity: 'north', background: '#fff' } }), [
      { field: 'image.resize', message: 'resize mode pad needs both width and height' },
      { field: 'image.resize.gravity', message: 'gravity applies only to resize mode fit' },
    ]);
    assert.deepEqual(check({ resize: { width: 10, height: 5, mode: 'exact', background: '#fff' } }), [
      { field: 'image.resize.background', message: 'background applies only to resize mode pad' },
    ]);
    assert.deepEqual(check({ resize: { width: 10, height: 5, mode: 'pad', background: '#00000000' } }), []);
  });
});
