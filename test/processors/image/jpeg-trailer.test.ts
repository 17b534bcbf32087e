/**
 * A JPEG with a ZIP or an HTML page appended after its end-of-image marker (a polyglot file) must not
 * come back whole through the never-larger rule: what is delivered ends at the EOI and shows the same
 * pixels.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { corpus } from '../../support/corpus.ts';
import { useScratch } from '../../support/scratch.ts';
import { removeWorkDirs, runImage } from './run-image.ts';

const EOI = Buffer.from([0xff, 0xd9]);
const HTML = Buffer.from(
  '<!doctype html><html><body><script>alert(document.cookie)</script></body></html>\n',
);

const scratch = useScratch('presso-trailer-');
after(removeWorkDirs);
let jpeg: Buffer;
let zip: Buffer;
before(async () => {
  // A low-quality JPEG: re-encoding it at a perceptual target does not make it smaller, so the
  // never-larger rule falls back to the input, which is where the trailer used to slip through.
  jpeg = await sharp(corpus.chelsea).jpeg({ quality: 30 }).toBuffer();
  await writeFile(join(scratch(), 'readme.txt'), 'a real archive entry\n'.repeat(50));
  execFileSync('zip', ['-q', '-X', 'payload.zip', 'readme.txt'], { cwd: scratch() });
  zip = await readFile(join(scratch(), 'payload.zip'));
});

/** Runs a job the way the runner's keep-smaller step ends it: the output only when it is smaller. */
async function deliver(base: Buffer, trailer: Buffer, params: Record<string, unknown>): Promise<Buffer> {
  const input = join(scratch(), `input-${Math.random().toString(36).slice(2)}.jpg`);
  await writeFile(input, Buffer.concat([base, trailer]));
  const result = await runImage(input, params);
  assert.equal(result.format, 'jpeg');
  assert.equal(result.transformed, false);
  return readFile(result.outputSize < result.inputSize ? result.path : input);
}

async function pixels(input: Buffer): Promise<Buffer> {
  return sharp(input, { failOn: 'error' }).raw().toBuffer();
}

describe('image processor: JPEG with data after the end-of-image marker', () => {
  it('lossless, metadata kept: a ZIP appended is cut off and the JPEG is copied byte for byte', async () => {
    const out = await deliver(jpeg, zip, { compression: 'lossless', metadata: 'keep' });
    assert.ok(out.equals(jpeg));
  });

  it('an encode that is not smaller: the input is delivered cut at its EOI, an HTML page dropped', async () => {
    const out = await deliver(jpeg, HTML, { compression: 'high', metadata: 'keep' });
    assert.ok(out.subarray(-2).equals(EOI));
    assert.equal(out.indexOf('<html'), -1);
    assert.ok(out.equals(jpeg), 'the original compressed pixels, unchanged');
  });

  it('metadata stripped: the cut input also loses its EXIF, and its pixels stay the same', async () => {
    const tagged = await sharp(corpus.chelsea)
      .withExif({ IFD0: { Artist: 'someone' } })
      .jpeg({ quality: 30 })
      .toBuffer();
    const out = await deliver(tagged, zip, { compression: 'high' });
    assert.ok(out.subarray(-2).equals(EOI));
    assert.equal(out.indexOf(zip), -1);
    assert.equal((await sharp(out).metadata()).exif, undefined);
    assert.ok(out.length < tagged.length);
    assert.ok((await pixels(out)).equals(await pixels(tagged)));
  });
});
