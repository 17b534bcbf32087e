/**
 * A PDF through POST /1.0/upload with the real PDF processor (app.inject): the result describes a PDF
 * output that qpdf accepts with the same pages and words; an encrypted PDF without its password is 422 on
 * `pdf.password`; a bad `pdf` parameter is 422 before any work; a damaged file qpdf repairs with warnings
 * (its exit code 3) is processed, the warnings logged.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createPdfProcessor } from '../../src/processors/pdf/pdf-processor.ts';
import { assertErrorBody, type CompletedResult, download } from '../api/helpers.ts';
import { pdfFacts, samples } from '../processors/pdf/fixtures.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';

describe('POST /1.0/upload: a PDF', () => {
  let presso: TestApp;
  const warnings: string[] = [];
  before(async () => {
    presso = await buildTestApp({
      processors: [createPdfProcessor({ onWarning: (message) => warnings.push(message) })],
    });
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

  test('a damaged cross-reference table qpdf rebuilds (exit 3, "succeeded with warnings") is processed', async () => {
    // The last startxref points past the end: every qpdf call warns "file is damaged" and rebuilds the table.
    const damage = (pdf: Buffer) => {
      const at = pdf.lastIndexOf('startxref');
      return Buffer.concat([pdf.subarray(0, at), Buffer.from('startxref\n999999\n%%EOF\n')]);
    };
    const inputs = [
      { file: samples.text, pdf: { compression: 'lossless' } },
      { file: samples.text, pdf: { compression: 'high', grayscale: true } },
      { file: samples.encrypted, pdf: { compression: 'lossless', password: samples.password } },
    ];
    for (const { file, pdf } of inputs) {
      warnings.length = 0;
      const response = await presso.upload(damage(await readFile(file)), { pdf }, undefined, 'damaged.pdf');
      const result = (await response.json()) as CompletedResult & { message?: string };
      assert.equal(response.status, 200, `${JSON.stringify(pdf)}: ${result.message}`);
      const path = join(presso.dataDir, 'repaired.pdf');
      await writeFile(path, await download(presso, result));
      // The output is whole again: qpdf checks it without a warning (exit 0), every page and word is there.
      execFileSync('qpdf', ['--check', path], { stdio: 'pipe' });
      const facts = pdfFacts(path);
      assert.equal(facts.pages, 2);
      assert.equal(facts.text, pdfFacts(samples.text).text);
      assert.ok(
        warnings.some((w) => /file is damaged/.test(w)),
        warnings.join('\n'),
      );
      assert.ok(!warnings.some((w) => w.includes(samples.password)), 'a warning holds the password');
    }
  });
});
