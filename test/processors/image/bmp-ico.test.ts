import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { UnprocessableInputError, ValidationError } from '../../../src/errors/catalog.ts';
import { readIconDirectory, readIconEntry } from '../../../src/processors/image/codecs/ico.ts';
import { type BmpSpec, writeBmp, writeIco } from '../../support/bmp-writer.ts';
import { corpus } from '../../support/corpus.ts';
import { decode } from '../../support/images.ts';
import { useScratch } from '../../support/scratch.ts';
import { removeWorkDirs, runImage } from './run-image.ts';

const scratch = useScratch('presso-bmp-');
after(removeWorkDirs);
let photo: { width: number; height: number; rgba: Uint8Array };
before(async () => {
  // An odd width exercises row padding.
  const { data, info } = await sharp(corpus.chelsea)
    .resize(37, 23, { fit: 'fill' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  photo = { width: info.width, height: info.height, rgba: data };
});

async function file(name: string, bytes: Buffer): Promise<string> {
  const path = join(scratch(), name);
  await writeFile(path, bytes);
  return path;
}

/** Decoded RGBA of an output (lossless PNG), for exact comparison. */
async function rgbaOf(path: string): Promise<Buffer> {
  return sharp(path).ensureAlpha().raw().toBuffer();
}

const expand = (v: number, bits: number) => Math.round((v * 255) / (2 ** bits - 1));

function expected(map: (r: number, g: number, b: number, a: number) => number[]): Buffer {
  const out = Buffer.alloc(photo.rgba.length);
  for (let i = 0; i < photo.rgba.length; i += 4) {
    const [r, g, b, a] = photo.rgba.subarray(i, i + 4);
    out.set(map(r!, g!, b!, a!), i);
  }
  return out;
}

function indexed(n: number): { indices: Uint8Array; palette: [number, number, number][]; rgba: Buffer } {
  const palette = Array.from({ length: n }, (_, i) => [(i * 37) % 256, (i * 91) % 256, (i * 53) % 256]) as [
    number,
    number,
    number,
  ][];
  const indices = new Uint8Array(photo.width * photo.height);
  const rgba = Buffer.alloc(indices.length * 4);
  for (let i = 0; i < indices.length; i++) {
    // Runs of equal values so RLE has something to do.
    indices[i] = Math.floor((i % photo.width) / 4 + Math.floor(i / photo.width) / 3) % n;
    rgba.set([...palette[indices[i]!]!, 255], i * 4);
  }
  return { indices, palette, rgba };
}

describe('image processor: BMP input', () => {
  const { width, height } = { width: 37, height: 23 };
  const cases: [string, () => { spec: BmpSpec; want: Buffer }][] = [
    [
      '24-bit bottom-up',
      () => ({
        spec: { width, height, bitCount: 24, rgba: photo.rgba },
        want: expected((r, g, b) => [r, g, b, 255]),
      }),
    ],
    [
      '24-bit top-down',
      () => ({
        spec: { width, height, bitCount: 24, rgba: photo.rgba, topDown: true },
        want: expected((r, g, b) => [r, g, b, 255]),
      }),
    ],
    [
      '32-bit BI_RGB (padding byte)',
      () => ({
        spec: { width, height, bitCount: 32, rgba: expected((r, g, b) => [r, g, b, 0]) },
        want: expected((r, g, b) => [r, g, b, 255]),
      }),
    ],
    [
      '32-bit BGRA with alpha',
      () => ({
        spec: { width, height, bitCount: 32, rgba: expected((r, g, b) => [r, g, b, r > 128 ? 255 : 40]) },
        want: expected((r, g, b) => [r, g, b, r > 128 ? 255 : 40]),
      }),
    ],
    [
      '32-bit BITFIELDS BGRX',
      () => ({
        spec: {
          width,
          height,
          bitCount: 32,
          compression: 3,
          masks: [0xff0000, 0xff00, 0xff, 0],
          rgba: photo.rgba,
        },
        want: expected((r, g, b) => [r, g, b, 255]),
      }),
    ],
    [
      '16-bit 555',
      () => ({
        spec: { width, height, bitCount: 16, rgba: photo.rgba },
        want: expected((r, g, b) => [expand(r >> 3, 5), expand(g >> 3, 5), expand(b >> 3, 5), 255]),
      }),
    ],
    [
      '16-bit 565 BITFIELDS',
      () => ({
        spec: { width, height, bitCount: 16, compression: 3, rgba: photo.rgba },
        want: expected((r, g, b) => [expand(r >> 3, 5), expand(g >> 2, 6), expand(b >> 3, 5), 255]),
      }),
    ],
    [
      '8-bit palette',
      () => {
        const p = indexed(200);
        return { spec: { width, height, bitCount: 8, ...p }, want: p.rgba };
      },
    ],
    [
      '4-bit palette',
      () => {
        const p = indexed(16);
        return { spec: { width, height, bitCount: 4, ...p }, want: p.rgba };
      },
    ],
    [
      '1-bit palette',
      () => {
        const p = indexed(2);
        return { spec: { width, height, bitCount: 1, ...p }, want: p.rgba };
      },
    ],
    [
      'RLE8',
      () => {
        const p = indexed(100);
        return { spec: { width, height, bitCount: 8, compression: 1, ...p }, want: p.rgba };
      },
    ],
    [
      'RLE4',
      () => {
        const p = indexed(16);
        return { spec: { width, height, bitCount: 4, compression: 2, ...p }, want: p.rgba };
      },
    ],
  ];
  for (const [name, make] of cases) {
    it(`decodes ${name} exactly`, async () => {
      const { spec, want } = make();
      const path = await file(`${name.replace(/\W+/g, '-')}.bmp`, writeBmp(spec));
      const result = await runImage(path, { compression: 'lossless' });
      assert.equal(result.format, 'png');
      const out = await decode(result.path);
      assert.deepEqual([out.format, out.width, out.height], ['png', 37, 23]);
      assert.ok((await rgbaOf(result.path)).equals(want), 'pixels differ from the input');
    });
  }

  it('refuses a truncated BMP and an impossible header with a 422', async () => {
    const whole = writeBmp({ width: 37, height: 23, bitCount: 24, rgba: photo.rgba });
    const cut = await file('cut.bmp', whole.subarray(0, 1000));
    await assert.rejects(
      runImage(cut),
      (e: unknown) => e instanceof UnprocessableInputError && /truncated/.test(e.message),
    );
    const liar = Buffer.from(whole);
    liar.writeUInt16LE(13, 28); // 13 bits per pixel
    await assert.rejects(runImage(await file('liar.bmp', liar)), UnprocessableInputError);
  });
});

describe('image processor: ICO/CUR', () => {
  async function icon(): Promise<string> {
    const png64 = await sharp(corpus.alphaPng)
      .resize(64, 64, { fit: 'contain', background: '#0000' })
      .png()
      .toBuffer();
    const p = indexed(16);
    const mask = new Uint8Array(37 * 23).map((_, i) => (i % 37 < 5 ? 1 : 0));
    return file(
      'mixed.ico',
      writeIco([
        { bmp: { width: 37, height: 23, bitCount: 4, ...p }, andMask: mask },
        { png: png64, size: 64 },
        { bmp: { width: 37, height: 23, bitCount: 32, rgba: photo.rgba } },
      ]),
    );
  }

  it('uses the largest entry and keeps its transparency', async () => {
    const result = await runImage(await icon(), { format: 'png' });
    const out = await decode(result.path);
    assert.deepEqual([out.width, out.height, out.hasAlpha], [64, 64, true]);
  });

  it('uses the entry asked for with page, with the AND mask as transparency', async () => {
    const result = await runImage(await icon(), { page: 0, format: 'png', compression: 'lossless' });
    const rgba = await rgbaOf(result.path);
    assert.deepEqual([(await decode(result.path)).width, rgba[3], rgba[5 * 4 + 3]], [37, 0, 255]);
    const p = indexed(16);
    assert.deepEqual([...rgba.subarray(20, 23)], [...p.rgba.subarray(20, 23)]);
  });

  it('refuses a page that does not exist with image.page', async () => {
    await assert.rejects(runImage(await icon(), { page: 3 }), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.equal(e.errors?.[0]?.field, 'image.page');
      assert.match(e.errors?.[0]?.message ?? '', /3 entries/);
      return true;
    });
  });

  it('writes an icon with the standard sizes up to 256 as PNG entries', async () => {
    const result = await runImage(corpus.alphaPng, { format: 'ico' });
    assert.equal(result.format, 'ico');
    const bytes = await readFile(result.path);
    const entries = readIconDirectory(bytes);
    assert.deepEqual(
      entries.map((e) => e.width),
      [16, 24, 32, 48, 64, 128, 256],
    );
    for (const entry of entries) {
      const data = readIconEntry(bytes, entry);
      assert.ok('png' in data);
      const out = await decode(Buffer.from(data.png));
      assert.deepEqual(
        [out.format, out.width, out.height, out.hasAlpha],
        ['png', entry.width, entry.width, true],
      );
    }
    // ICO input defaults to ICO output; a small image gets only the sizes up to its own.
    const small = await runImage(await icon(), { resize: { width: 40 } });
    assert.equal(small.format, 'ico');
    assert.deepEqual(
      readIconDirectory(await readFile(small.path)).map((e) => e.width),
      [16, 24, 32],
    );
  });
});
