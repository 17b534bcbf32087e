/**
 * Thumbnails are dropped below `lossless` with every reference to them, and the document still opens
 * with the same pages: an ODT made by someone else (the forensics a-text.odt, with LibreOffice's
 * `Thumbnails/thumbnail.png`) and a DOCX given a thumbnail the way Word saves one. `lossless` keeps them.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createDocumentProcessor } from '../../../src/processors/document/document-processor.ts';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import { corpus } from '../../support/corpus.ts';
import { DEFAULT_SETTINGS } from '../../support/host-settings.ts';
import { useScratch } from '../../support/scratch.ts';
import { NO_TIME_PRESSURE } from '../../support/time-scale.ts';
import { documentJob, layout, layouts } from './fixtures.ts';
import { firstPage, parts, partText, withThumbnail } from './photo-fixtures.ts';

describe('document thumbnails', () => {
  const scratch = useScratch('presso-document-thumbnails-');
  // The processor's own re-opening of each result (`verify`, a LibreOffice start per job) is
  // document.test.ts's: the layouts this file makes of the results prove the same pages, independently.
  const processor = createDocumentProcessor(
    createImageProcessor(NO_TIME_PRESSURE),
    { ...NO_TIME_PRESSURE, verify: false },
    DEFAULT_SETTINGS,
  );

  test('ODT: Thumbnails/thumbnail.png and its manifest entry go; same pages; kept at lossless', async () => {
    assert.ok(
      parts(corpus.odt).some((e) => e.name === 'Thumbnails/thumbnail.png'),
      'the sample has one',
    );
    const result = await processor.process(
      documentJob(scratch(), corpus.odt, 'odt', { compression: 'high' }),
    );
    assert.notEqual(result.path, corpus.odt, 'the re-packed document was not kept');
    const entries = parts(result.path);
    assert.ok(!entries.some((e) => e.name.startsWith('Thumbnails/')), entries.map((e) => e.name).join(', '));
    assert.equal(entries[0]!.name, 'mimetype');
    assert.doesNotMatch(partText(entries, 'META-INF/manifest.xml'), /Thumbnails/);
    // Both laid out by one LibreOffice start.
    const [before, after] = layouts([corpus.odt, result.path], join(scratch(), 'odt-layouts'));
    assert.equal(after!.pages, before!.pages);
    assert.equal(after!.text, before!.text);

    const lossless = await processor.process(
      documentJob(scratch(), corpus.odt, 'odt', { compression: 'lossless' }),
    );
    assert.notEqual(lossless.path, corpus.odt, 'the lossless re-pack was not kept');
    assert.ok(parts(lossless.path).some((e) => e.name === 'Thumbnails/thumbnail.png'));
  });

  test('DOCX: docProps/thumbnail.jpeg, its relationship and override go; same pages; kept at lossless', async () => {
    const page = await firstPage(corpus.docx, scratch());
    const input = await withThumbnail(corpus.docx, page.pixels, join(scratch(), 'thumbnail.docx'));
    const result = await processor.process(documentJob(scratch(), input, 'docx', { compression: 'high' }));
    assert.notEqual(result.path, input, 'the re-packed document was not kept');
    const entries = parts(result.path);
    assert.ok(!entries.some((e) => /thumbnail/i.test(e.name)), entries.map((e) => e.name).join(', '));
    assert.doesNotMatch(partText(entries, '_rels/.rels'), /thumbnail/);
    assert.match(
      partText(entries, '_rels/.rels'),
      /Target="word\/document\.xml"/,
      'the other relationships stay',
    );
    assert.doesNotMatch(partText(entries, '[Content_Types].xml'), /thumbnail/);
    const after = layout(result.path, join(scratch(), 'docx-out'));
    assert.equal(after.pages, page.pages);
    assert.match(after.text, /\S/);

    const lossless = await processor.process(
      documentJob(scratch(), input, 'docx', { compression: 'lossless' }),
    );
    assert.notEqual(lossless.path, input, 'the lossless re-pack was not kept');
    assert.ok(parts(lossless.path).some((e) => e.name === 'docProps/thumbnail.jpeg'));
  });
});
