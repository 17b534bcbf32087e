/**
 * The PDF processor on real files, every output checked by independent tools: qpdf --check, Poppler's
 * page count and text, pages rendered by pdftoppm and scored with SSIMULACRA 2 against the input's.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { PressoError } from '../../../src/errors/catalog.ts';
import { createPdfProcessor } from '../../../src/processors/pdf/pdf-processor.ts';
import { readPnm } from '../../../src/processors/pdf/pnm.ts';
import { PAGE_TARGETS } from '../../../src/processors/pdf/targets.ts';
import { AdmissionBudget } from '../../../src/processors/shared/admission-budget.ts';
import { scorePixels } from '../../../src/processors/shared/metric/score.ts';
import { useScratch } from '../../support/scratch.ts';
import { NO_TIME_PRESSURE } from '../../support/time-scale.ts';
import { PHOTO_WORDS, pdfFacts, pdfJob, renderAll, samples, writePhotoPdf } from './fixtures.ts';

describe('PDF processor', () => {
  const scratch = useScratch('presso-pdf-');
  const processor = createPdfProcessor(NO_TIME_PRESSURE);
  let photos: string;
  before(async () => {
    photos = await writePhotoPdf(scratch());
  });

  /** Each input's pages drawn once for the whole file: the level tests and the lossless one compare to them. */
  const inputPages = new Map<string, string[]>();
  const renderInput = (path: string, tag: string) => {
    if (!inputPages.has(path)) inputPages.set(path, renderAll(path, join(scratch(), `in-${tag}`)));
    return inputPages.get(path)!;
  };

  const sizes: Record<string, number> = {};
  for (const level of ['medium', 'high', 'ultra'] as const) {
    test(`${level}: valid, same pages and words, rendered pages meet the target, within the trial budget`, async () => {
      const trials: number[] = [];
      const counting = createPdfProcessor({ maxTrials: 3, onTrial: (t) => trials.push(t.bytes) });
      const result = await counting.process(pdfJob(scratch(), photos, { compression: level }));
      assert.ok(trials.length >= 1 && trials.length <= 3, `${trials.length} trials`);
      const facts = pdfFacts(result.path);
      assert.equal(facts.pages, 3);
      for (const word of PHOTO_WORDS) assert.ok(facts.text.includes(word), `${word} still extractable`);
      const bytes = statSync(result.path).size;
      sizes[level] = bytes;
      // medium keeps the photo close to its input on this file; the stronger levels must halve it.
      const bound = level === 'medium' ? 1.01 : 0.5;
      assert.ok(bytes < statSync(photos).size * bound, `${bytes} bytes`);
      const before = renderInput(photos, 'photos');
      const after = renderAll(result.path, join(scratch(), `out-${level}`));
      for (const [i, page] of before.entries()) {
        const score = await scorePixels(await readPnm(page), await readPnm(after[i]!));
        assert.ok(score >= PAGE_TARGETS[level], `page ${i + 1}: ${score} >= ${PAGE_TARGETS[level]}`);
      }
      // Text stays text: Helvetica is still a font, not pixels.
      assert.match(execFileSync('pdffonts', [result.path], { encoding: 'utf8' }), /Helvetica/);
      if (level === 'ultra')
        assert.ok(bytes <= sizes.high! && sizes.high! <= sizes.medium!, JSON.stringify(sizes));
    });
  }

  test('lossless changes no pixel and linearises by default', async () => {
    for (const input of [photos, samples.text]) {
      const result = await processor.process(pdfJob(scratch(), input, { compression: 'lossless' }));
      assert.equal(result.transformed, false);
      const facts = pdfFacts(result.path);
      assert.equal(facts.optimized, true, 'linearised');
      const tag = input === photos ? 'photos' : 'text';
      const before = renderInput(input, tag);
      const after = renderAll(result.path, join(scratch(), `ll-out-${tag}`));
      assert.equal(after.length, before.length);
      for (const [i, page] of before.entries()) {
        assert.ok(readFileSync(page).equals(readFileSync(after[i]!)), `page ${i + 1} pixels identical`);
      }
    }
  });

  test('linearize false leaves the output unlinearised', async () => {
    const result = await processor.process(pdfJob(scratch(), samples.text, { linearize: false }));
    assert.equal(pdfFacts(result.path).optimized, false);
  });

  test('a text-only PDF keeps its words and fonts', async () => {
    const result = await processor.process(pdfJob(scratch(), samples.text, { compression: 'ultra' }));
    const facts = pdfFacts(result.path);
    assert.equal(facts.pages, 2);
    const words = pdfFacts(samples.text)
      .text.split(/\s+/)
      .filter((w) => w.length > 3);
    assert.ok(words.length > 10);
    for (const word of words) assert.ok(facts.text.includes(word), word);
  });

  test('grayscale: every rendered pixel is grey, the text stays', async () => {
    // At ultra, whose first rung meets its target here: the level is not what this test is about, and
    // the default level's search took two Ghostscript trials.
    const result = await processor.process(
      pdfJob(scratch(), photos, { grayscale: true, compression: 'ultra' }),
    );
    assert.equal(result.transformed, true);
    const facts = pdfFacts(result.path);
    assert.equal(facts.pages, 3);
    assert.ok(facts.text.includes('Presso'));
    const [page] = renderAll(result.path, join(scratch(), 'gray'));
    const { data, channels } = await readPnm(page!);
    assert.equal(channels, 3);
    let coloured = 0;
    for (let i = 0; i < data.length; i += 3) {
      if (
        Math.max(data[i]!, data[i + 1]!, data[i + 2]!) - Math.min(data[i]!, data[i + 1]!, data[i + 2]!) >
        2
      ) {
        coloured++;
      }
    }
    assert.equal(coloured, 0);
  });

  test('grayscale with lossless is refused on pdf.grayscale', async () => {
    await assert.rejects(
      processor.process(pdfJob(scratch(), photos, { grayscale: true, compression: 'lossless' })),
      (error: unknown) => error instanceof PressoError && error.errors?.[0]?.field === 'pdf.grayscale',
    );
  });

  test('format pdfa writes PDF/A-2b: identification, sRGB output intent, every font embedded', async () => {
    // At ultra, as the grayscale test: one Ghostscript trial instead of the default level's two.
    const result = await processor.process(
      pdfJob(scratch(), photos, { format: 'pdfa', compression: 'ultra' }),
    );
    const meta = execFileSync('pdfinfo', ['-meta', result.path], { encoding: 'utf8' });
    assert.match(meta, /pdfaid:part=['"]2['"]/);
    assert.match(meta, /pdfaid:conformance=['"]B['"]/);
    const catalog = execFileSync('qpdf', ['--show-object=trailer', result.path], { encoding: 'utf8' });
    const root = /\/Root (\d+) 0 R/.exec(catalog)?.[1];
    assert.match(
      execFileSync('qpdf', [`--show-object=${root}`, result.path], { encoding: 'utf8' }),
      /OutputIntents/,
    );
    const fonts = execFileSync('pdffonts', [result.path], { encoding: 'utf8' }).split('\n').slice(2);
    assert.ok(fonts.some((line) => line.includes('Helvetica') || line.includes('Nimbus')));
    for (const line of fonts.filter((l) => l.trim() !== '')) assert.match(line, /\syes\s+yes\s/, line);
    assert.equal(pdfFacts(result.path).pages, 3);
  });

  test('encrypted input: no password, a wrong one or one with a line break is 422 on pdf.password; the right one opens it', async () => {
    // qpdf reads the password's first line: the right one followed by a line break would be cut short.
    for (const params of [{}, { password: 'wrong' }, { password: `${samples.password}\nrest` }]) {
      await assert.rejects(
        processor.process(pdfJob(scratch(), samples.encrypted, params)),
        (error: unknown) => {
          assert.ok(error instanceof PressoError);
          assert.equal(error.statusCode, 422);
          assert.equal(error.errors?.[0]?.field, 'pdf.password');
          return true;
        },
      );
    }
    // Lossless: the password opens the file before any engine runs; the lossy search is the level tests'.
    const result = await processor.process(
      pdfJob(scratch(), samples.encrypted, { password: samples.password, compression: 'lossless' }, true),
    );
    const facts = pdfFacts(result.path);
    assert.equal(facts.pages, 2);
    assert.equal(facts.text, pdfFacts(samples.text).text);
    assert.equal(result.metadata?.encrypted, true);
    assert.match(
      execFileSync('qpdf', ['--show-encryption', result.path], { encoding: 'utf8' }),
      /not encrypted/,
    );
  });

  test('metadata: pages and sizes, version, document info, fonts, images, linearised, tagged', async () => {
    const result = await processor.process(pdfJob(scratch(), photos, { compression: 'lossless' }, true));
    const metadata = result.metadata as Record<string, unknown>;
    assert.equal(metadata.pages, 3);
    assert.deepEqual((metadata.pageSizes as unknown[])[0], { page: 1, width: 612, height: 792 });
    assert.equal(metadata.version, '1.5');
    assert.equal(metadata.title, 'Test photos');
    assert.equal(metadata.author, 'Presso tests');
    assert.equal(metadata.producer, 'presso test pdf-writer');
    assert.equal(metadata.encrypted, false);
    assert.deepEqual(metadata.fonts, [{ name: 'Helvetica', type: 'Type 1', embedded: false }]);
    assert.equal(metadata.images, 2);
    assert.equal(metadata.linearized, false);
    assert.equal(metadata.tagged, false);
    // Metadata describes the input, read before any engine runs: lossless spares the lossy search.
    const text = await processor.process(pdfJob(scratch(), samples.text, { compression: 'lossless' }, true));
    const fonts = (text.metadata as { fonts: { embedded: boolean }[] }).fonts;
    assert.ok(fonts.length === 2 && fonts.every((f) => f.embedded));
  });

  test('PRESSO_PDF_ENGINES=qpdf: only the lossless engine runs, no trial is made', async () => {
    const trials: unknown[] = [];
    const qpdfOnly = createPdfProcessor({ engines: ['qpdf'], onTrial: (t) => trials.push(t) });
    const result = await qpdfOnly.process(pdfJob(scratch(), photos, { compression: 'ultra' }));
    assert.deepEqual(trials, []);
    assert.equal(pdfFacts(result.path).pages, 3);
    await assert.rejects(qpdfOnly.process(pdfJob(scratch(), photos, { grayscale: true })), /ghostscript/);
  });
});

test('a PDF waits for its turn in the PDF budget before any tool runs, and releases it after', async () => {
  const scratch = await mkdtemp(join(tmpdir(), 'presso-pdf-turn-'));
  try {
    const budget = new AdmissionBudget(1);
    const processor = createPdfProcessor({}, budget);
    const held = await budget.acquire(1); // another PDF in flight
    const job = processor.process(pdfJob(scratch, samples.text, { compression: 'lossless' }));
    while (budget.waiting === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    // Nothing written in the job's folder while it waits: no tool has run.
    assert.deepEqual(readdirSync(join(scratch, readdirSync(scratch)[0]!)), []);
    held();
    const result = await job;
    assert.equal(pdfFacts(result.path).pages, 2);
    assert.equal(budget.inUse, 0);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
});
