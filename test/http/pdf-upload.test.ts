/**
 * A PDF through POST /1.0/upload with the real PDF processor (app.inject): the result describes a PDF
 * output that qpdf accepts with the same pages and words; an encrypted PDF without its password is 422 on
 * `pdf.password`; a bad `pdf` parameter is 422 before any work.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createPdfProcessor } from '../../src/processors/pdf/pdf-processor.ts';
import { assertErrorBody, type CompletedResult, download } from '../api/helpers.ts';
import { pdfFacts, samples } from '../processors/pdf/fixtures.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';

describe('POST /1.0/upload: a PDF', () => {
  let presso: TestApp;
  before(async () => {
    presso = await buildTestApp({ processors: [createPdfProcessor()] });
  });
  after(() => presso?.close());

  test('is compressed losslessly and linearised, with metadata', async () => {
    const response = await presso.upload(samples.text, { pdf: { compression: 'lossless' }, metadata: true });
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult & { metadata?: Record<string, unknown> };
    assert.equal(result.input.format, 'pdf');
    assert.equal(result.output.format, 'pdf');
    assert.equal(result.output.mime, 'application/pdf');
    const path = join(presso.dataDir, 'downloaded.pdf');
    await writeFile(path, await download(presso, result));
    const facts = pdfFacts(path);
    assert.equal(facts.pages, 2);
    assert.equal(facts.text, pdfFacts(samples.text).text);
    assert.ok(result.output.size <= result.input.size);
    execFileSync('qpdf', ['--check', path], { stdio: 'pipe' });
  });

  test('an encrypted PDF without its password is 422 on pdf.password', async () => {
    const response = await presso.upload(samples.encrypted, { pdf: { compression: 'high' } });
    const body = await assertErrorBody(response, 422);
    assert.deepEqual(
      (body.errors as Array<{ field: string }>).map((e) => e.field),
      ['pdf.password'],
    );
  });

  test('bad pdf parameters are 422 on their fields', async () => {
    const response = await presso.upload(samples.text, {
      pdf: { compression: 'extreme', format: 'docx', grayscale: true },
    });
    const body = await assertErrorBody(response, 422);
    const fields = (body.errors as Array<{ field: string }>).map((e) => e.field).sort();
    for (const field of ['pdf.compression', 'pdf.format'])
      assert.ok(fields.includes(field), fields.join(', '));
  });
});
