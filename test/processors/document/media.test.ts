/**
 * The pictures of a package recompressed one by one: a photo with an EXIF orientation is left as it is
 * (office suites size its frame from the stored pixels, and LibreOffice ignores the tag, so turning the
 * pixels upright would draw it turned and squeezed), while an upright photo beside it is recompressed.
 */
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { recompressMedia } from '../../../src/processors/document/media.ts';
import type { ZipEntry } from '../../../src/processors/document/zip.ts';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import { corpus } from '../../support/corpus.ts';
import { DEFAULT_SETTINGS } from '../../support/host-settings.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-document-media-');

test('a photo tagged with an EXIF orientation keeps its bytes; an upright one is recompressed', async () => {
  const photo = () => sharp(corpus.gpsPhoto).rotate().resize(400, 300, { fit: 'fill' });
  const turned = await photo().withMetadata({ orientation: 6 }).jpeg({ quality: 95 }).toBuffer();
  const upright = await photo().jpeg({ quality: 95 }).toBuffer();
  const entries: ZipEntry[] = [
    { name: 'word/media/image1.jpeg', data: turned, time: 0, date: 0x21 },
    { name: 'word/media/image2.jpeg', data: upright, time: 0, date: 0x21 },
  ];
  const result = await recompressMedia(entries, {
    images: createImageProcessor(),
    maxPixels: DEFAULT_SETTINGS.images.maxPixels,
    level: 'medium',
    imageFormat: 'keep',
    kind: 'ooxml',
    workDir: await mkdtemp(join(scratch(), 'job-')),
    signal: new AbortController().signal,
  });
  assert.ok(entries[0]!.data.equals(turned), 'the tagged photo is untouched');
  assert.ok(entries[1]!.data.length < upright.length, 'the upright photo is recompressed');
  const written = await sharp(entries[1]!.data).metadata();
  assert.deepEqual([written.width, written.height], [400, 300]);
  assert.equal(result.saved, upright.length - entries[1]!.data.length);
});

test('a conversion is not named like a part that differs only in case (one part to Word)', async () => {
  const png = await sharp(corpus.gpsPhoto).rotate().resize(400, 300).png().toBuffer();
  const other = await sharp(corpus.canonPhoto).rotate().resize(64, 48).jpeg().toBuffer();
  const entries: ZipEntry[] = [
    { name: 'word/media/image1.png', data: png, time: 0, date: 0x21 },
    { name: 'word/media/image1.JPEG', data: other, time: 0, date: 0x21 },
  ];
  const result = await recompressMedia(entries, {
    images: createImageProcessor(),
    maxPixels: DEFAULT_SETTINGS.images.maxPixels,
    level: 'high',
    imageFormat: 'jpeg',
    kind: 'ooxml',
    workDir: await mkdtemp(join(scratch(), 'job-')),
    signal: new AbortController().signal,
  });
  assert.deepEqual([...result.renamed], []);
  assert.deepEqual(
    entries.map((e) => e.name),
    ['word/media/image1.png', 'word/media/image1.JPEG'],
  );
});
