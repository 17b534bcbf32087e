import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { ValidationError } from '../../../src/errors/catalog.ts';
import { corpus } from '../../support/corpus.ts';
import { decode, psnr } from '../../support/images.ts';
import { processor, removeWorkDirs, runImage } from './run-image.ts';

after(removeWorkDirs);

describe('image processor: orientation and resize', () => {
  it('applies EXIF orientation (rotate 180) to the pixels', async () => {
    const input = await decode(corpus.rotatedPhoto);
    assert.equal(input.orientation, 3);
    const result = await runImage(corpus.rotatedPhoto, { resize: { width: 800 } });
    const out = await decode(result.path);
    assert.deepEqual([out.width, out.height, out.orientation], [800, 600, undefined]);
    const rotated = sharp(corpus.rotatedPhoto).autoOrient();
    const unrotated = sharp(corpus.rotatedPhoto);
    const matchRotated = await psnr(result.path, rotated);
    const matchUnrotated = await psnr(result.path, unrotated);
    assert.ok(matchRotated > 35, `PSNR against the rotated reference: ${matchRotated}`);
    assert.ok(matchRotated > matchUnrotated + 10, `${matchRotated} vs unrotated ${matchUnrotated}`);
  });

  it('resize auto with only a width keeps the aspect ratio', async () => {
    const result = await runImage(corpus.gpsPhoto, { resize: { width: 1000 } });
    assert.equal(result.transformed, true);
    const out = await decode(result.path);
    assert.deepEqual([out.width, out.height], [1000, 750]);
    assert.ok((await psnr(result.path, corpus.gpsPhoto)) > 35);
  });

  it('resize auto with a box fits inside it', async () => {
    const out = await decode((await runImage(corpus.chelsea, { resize: { width: 200, height: 200 } })).path);
    assert.deepEqual([out.width, out.height], [200, 133]);
  });

  it('resize fit gives exactly the box, cropped around the centre', async () => {
    const result = await runImage(corpus.chelsea, { resize: { width: 150, height: 150, mode: 'fit' } });
    const out = await decode(result.path);
    assert.deepEqual([out.width, out.height], [150, 150]);
    const reference = sharp(corpus.chelsea).resize(150, 150, { fit: 'cover' });
    assert.ok((await psnr(result.path, reference)) > 35);
  });

  it('resize fit with gravity crops that side', async () => {
    const west = await runImage(corpus.chelsea, {
      resize: { width: 100, height: 100, mode: 'fit', gravity: 'west' },
    });
    const reference = sharp(corpus.chelsea).resize(100, 100, { fit: 'cover', position: 'west' });
    const centre = sharp(corpus.chelsea).resize(100, 100, { fit: 'cover' });
    assert.ok((await psnr(west.path, reference)) > (await psnr(west.path, centre)) + 5);
  });

  it('resize fit with attention gravity gives the box', async () => {
    const result = await runImage(corpus.astronaut, {
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
