/**
 * The archive processor on real archives made by the usual tools: every format in and out (checked by
 * unzip, tar and 7z, the independent readers), members kept byte for byte with their names, times and
 * permissions, deep mode shrinking the photo inside and nothing else, and encrypted archives.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { createArchiveProcessor } from '../../../src/processors/archive/archive-processor.ts';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import { decodeRgb } from '../../../src/processors/shared/metric/pixels.ts';
import { scorePixels } from '../../../src/processors/shared/metric/score.ts';
import { runProcessor } from '../../support/media.ts';
import { onceEach } from '../../support/once-each.ts';
import { useScratch } from '../../support/scratch.ts';
import { PHOTO, TEXT_FILES, TREE_TIME, writeArchives } from './fixtures.ts';

const scratch = useScratch('presso-archive-');
// Deep mode meets the same photo in the ZIP and the TAR.XZ: its search runs once (once-each.ts).
const images = onceEach(createImageProcessor(), scratch);
const archives = createArchiveProcessor((kind) => (kind === 'image' ? images : undefined));
let samples: Record<string, string> | undefined;
const sample = (format: string) => {
  samples ??= writeArchives(scratch());
  return samples[format]!;
};

let unpacks = 0;
/** Unpacks with bsdtar into a fresh folder (the independent check of every output's content). */
function unpack(path: string): string {
  const into = join(scratch(), `unpacked-${unpacks++}`);
  mkdirSync(into);
  execFileSync('bsdtar', ['-x', '-f', path, '-C', into], { stdio: 'pipe' });
  return into;
}

function assertTreeKept(folder: string, options: { photoSame: boolean }): void {
  for (const [name, text] of Object.entries(TEXT_FILES)) {
    assert.equal(readFileSync(join(folder, name), 'utf8'), text, name);
    assert.equal(statSync(join(folder, name)).mtime.getTime(), TREE_TIME.getTime(), `${name} time`);
  }
  assert.equal(statSync(join(folder, 'docs/private.txt')).mode & 0o777, 0o600, 'permissions');
  assert.equal(readlinkSync(join(folder, 'link-to-notes')), 'notes.txt', 'symlink');
  if (options.photoSame)
    assert.deepEqual(
      readFileSync(join(folder, 'docs/photo.png')),
      readFileSync(sample('zip').replace(/tree\.zip$/, 'tree/docs/photo.png')),
    );
}

const VERIFY: Record<string, (path: string) => void> = {
  zip: (path) => execFileSync('unzip', ['-tq', path], { stdio: 'pipe' }),
  '7z': (path) => execFileSync('7z', ['t', path], { stdio: 'pipe' }),
  tar: (path) => execFileSync('tar', ['-tf', path], { stdio: 'pipe' }),
  'tar.gz': (path) => execFileSync('tar', ['-tzf', path], { stdio: 'pipe' }),
  'tar.bz2': (path) => execFileSync('tar', ['-tjf', path], { stdio: 'pipe' }),
  'tar.xz': (path) => execFileSync('tar', ['-tJf', path], { stdio: 'pipe' }),
  'tar.zst': (path) => execFileSync('tar', ['--zstd', '-tf', path], { stdio: 'pipe' }),
};

for (const format of ['zip', '7z', 'tar', 'tar.gz', 'tar.bz2', 'tar.xz', 'tar.zst']) {
  test(`${format}: re-packed at least as small, every member kept with its name, time and permissions`, async () => {
    const input = sample(format);
    const result = await runProcessor(archives, input, { compression: 'high' });
    assert.equal(result.format, format);
    assert.ok(result.outputSize <= result.inputSize, `${result.outputSize} > ${result.inputSize}`);
    VERIFY[format]!(result.path);
    assertTreeKept(unpack(result.path), { photoSame: true });
  });
}

test('a compressed TAR is recompressed as a stream: the TAR inside is byte-identical', async () => {
  const result = await runProcessor(archives, sample('tar.gz'), { compression: 'ultra' });
  assert.ok(result.outputSize < result.inputSize, 'zopfli beats gzip -6');
  const inner = execFileSync('gzip', ['-dc', result.path]);
  assert.deepEqual(inner, readFileSync(sample('tar')));
});

for (const [from, to] of [
  ['zip', 'tar.xz'],
  ['tar.gz', 'zip'],
  ['tar.zst', '7z'],
  ['7z', 'tar.bz2'],
] as const) {
  test(`${from} converted to ${to}: readable by the independent tool, members kept`, async () => {
    const result = await runProcessor(archives, sample(from), { format: to });
    assert.equal(result.format, to);
    assert.equal(result.transformed, true);
    VERIFY[to]!(result.path);
    assertTreeKept(unpack(result.path), { photoSame: true });
  });
}

test('single streams: recompressed, converted between compressors, and a TAR-only format refused on a tree', async () => {
  const xz = await runProcessor(archives, sample('gz'), { format: 'xz' });
  assert.equal(xz.format, 'xz');
  assert.equal(execFileSync('xz', ['-dc', xz.path]).toString(), TEXT_FILES['notes.txt']);
  const zst = await runProcessor(archives, sample('zst'), { compression: 'high' });
  assert.equal(execFileSync('zstd', ['-dc', zst.path]).toString(), TEXT_FILES['notes.txt']);
  const asTar = await runProcessor(archives, sample('bz2'), { format: 'tar.gz' });
  assert.equal(execFileSync('tar', ['-xzOf', asTar.path, 'notes.txt']).toString(), TEXT_FILES['notes.txt']);
  await assert.rejects(
    runProcessor(archives, sample('zip'), { format: 'gz' }),
    (error: Error & { errors?: { field: string }[] }) => {
      assert.equal(error.errors?.[0]?.field, 'archive.format');
      return true;
    },
  );
});

test('deep: the photo inside is optimised at the level (same format, far smaller), everything else byte-identical', async () => {
  for (const format of ['zip', 'tar.xz']) {
    const result = await runProcessor(
      archives,
      sample(format),
      { deep: true, compression: 'high' },
      { wantMetadata: true },
    );
    VERIFY[format]!(result.path);
    const folder = unpack(result.path);
    assertTreeKept(folder, { photoSame: false });
    const original = sample('zip').replace(/tree\.zip$/, 'tree/docs/photo.png');
    const photo = join(folder, 'docs/photo.png');
    assert.equal((await sharp(photo).metadata()).format, 'png');
    assert.ok(statSync(photo).size < statSync(original).size * 0.8, 'photo smaller');
    const score = await scorePixels(await decodeRgb(original), await decodeRgb(photo));
    assert.ok(score >= 79, `photo score ${score.toFixed(1)}`);
    assert.equal(statSync(photo).mtime.getTime(), TREE_TIME.getTime(), 'photo time kept');
    assert.ok(
      result.outputSize < result.inputSize * 0.8,
      `${format}: ${result.outputSize} of ${result.inputSize}`,
    );
    const deep = result.metadata?.deep as { improved: number };
    assert.equal(deep.improved, 1);
  }
});

test('metadata lists members with sizes and kinds', async () => {
  const result = await runProcessor(archives, sample('tar.gz'), {}, { wantMetadata: true });
  const meta = result.metadata as {
    files: number;
    links: number;
    unpackedBytes: number;
    listing: { name: string; kind: string }[];
  };
  assert.equal(meta.files, 4);
  assert.equal(meta.links, 1);
  const texts = Object.values(TEXT_FILES).reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  assert.equal(meta.unpackedBytes, texts + PHOTO.length, 'the files, not the link');
  const photo = meta.listing.find((m) => m.name.endsWith('docs/photo.png'));
  assert.equal(photo?.kind, 'image');
});

test('encrypted ZIP: refused on archive.password without it, re-packed and still encrypted with it', async () => {
  const dir = mkdtempSync(join(scratch(), 'enc-'));
  execFileSync(
    '7zz',
    [
      'a',
      '-bd',
      '-tzip',
      '-psecret',
      '-mem=AES256',
      join(dir, 'enc.zip'),
      sample('zip').replace(/tree\.zip$/, 'tree/notes.txt'),
    ],
    { stdio: 'pipe' },
  );
  await assert.rejects(
    runProcessor(archives, join(dir, 'enc.zip'), {}),
    (error: Error & { errors?: { field: string }[] }) => {
      assert.equal(error.errors?.[0]?.field, 'archive.password');
      return true;
    },
  );
  const result = await runProcessor(archives, join(dir, 'enc.zip'), { password: 'secret', deep: true });
  assert.throws(() => execFileSync('7z', ['t', '-pwrong', result.path], { stdio: 'pipe' }));
  execFileSync('7z', ['t', '-psecret', result.path], { stdio: 'pipe' });
});
