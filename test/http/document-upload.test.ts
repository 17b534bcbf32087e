/**
 * An office document through POST /1.0/upload with the real document processor (app.inject): DOCX to
 * PDF answers with a PDF output that qpdf accepts; a conversion across families, and a picture format
 * Office or LibreOffice cannot show inside a document, are 422 on their field.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createDocumentProcessor } from '../../src/processors/document/document-processor.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { assertErrorBody, type CompletedResult, download } from '../api/helpers.ts';
import { corpus } from '../support/corpus.ts';
import { DEFAULT_SETTINGS } from '../support/host-settings.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';

describe('POST /1.0/upload: an office document', () => {
  let presso: TestApp;
  before(async () => {
    presso = await buildTestApp({
      processors: [createDocumentProcessor(createImageProcessor(), {}, DEFAULT_SETTINGS)],
    });
  });
  after(() => presso?.close());

  test('DOCX converted to PDF', async () => {
    const response = await presso.upload(corpus.docx, { document: { format: 'pdf' } });
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult;
    assert.equal(result.input.format, 'docx');
    assert.equal(result.output.format, 'pdf');
    assert.equal(result.output.mime, 'application/pdf');
    assert.equal(result.output.name, 'a-text.pdf');
    const path = join(presso.dataDir, 'converted.pdf');
    await writeFile(path, await download(presso, result));
    execFileSync('qpdf', ['--check', path], { stdio: 'pipe' });
    assert.match(execFileSync('pdfinfo', [path], { encoding: 'utf8' }), /^Pages:\s+2$/m);
  });

  test('ODT to XLSX is 422 on document.format', async () => {
    const response = await presso.upload(corpus.odt, { document: { format: 'xlsx' } });
    const body = await assertErrorBody(response, 422);
    assert.deepEqual(
      (body.errors as Array<{ field: string }>).map((e) => e.field),
      ['document.format'],
    );
  });

  test('images.format webp is 422 on document.images.format (not every office suite shows WebP)', async () => {
    const response = await presso.upload(corpus.odt, { document: { images: { format: 'webp' } } });
    const body = await assertErrorBody(response, 422);
    assert.deepEqual(
      (body.errors as Array<{ field: string }>).map((e) => e.field),
      ['document.images.format'],
    );
  });
});
