/**
 * The document processor on real office files: pictures recompressed in their own format and the
 * container re-packed, the result re-opened by LibreOffice with the same page count and words;
 * conversions to PDF and OOXML; the family rule; zip-bomb limits; a missing LibreOffice; a conversion
 * stopped at the deadline leaves no process behind.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { PressoError } from '../../../src/errors/catalog.ts';
import { createDocumentProcessor } from '../../../src/processors/document/document-processor.ts';
import { readZip, writeZip } from '../../../src/processors/document/zip.ts';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import type { ProcessResult } from '../../../src/processors/processor.ts';
import { setSandboxMode } from '../../../src/processors/shared/sandbox.ts';
import { odtLinking } from '../../security/office-link-documents.ts';
import { corpus } from '../../support/corpus.ts';
import { DEFAULT_SETTINGS } from '../../support/host-settings.ts';
import { onceEach } from '../../support/once-each.ts';
import { startReceiver } from '../../support/receiver.ts';
import { useScratch } from '../../support/scratch.ts';
import { NO_TIME_PRESSURE } from '../../support/time-scale.ts';
import {
  documentJob,
  layout,
  layouts,
  makeOfficeSamples,
  type OfficeSamples,
  PHOTO_WORDS,
} from './fixtures.ts';

type Layout = ReturnType<typeof layout>;

const ZIP_LIMITS = { maxEntries: 1000, maxUnzippedBytes: 1e9 };

describe('document processor', () => {
  const scratch = useScratch('presso-document-');
  // The DOCX and the ODT hold the same photo: its search runs once (once-each.ts).
  const images = onceEach(createImageProcessor(NO_TIME_PRESSURE), scratch);
  const processor = createDocumentProcessor(images, NO_TIME_PRESSURE, DEFAULT_SETTINGS);
  let samples: Partial<OfficeSamples>;
  before(() => {
    samples = makeOfficeSamples(scratch(), ['docx', 'odt']);
  });

  /**
   * The DOCX and the ODT compressed, then both inputs and outputs laid out by one LibreOffice start (four
   * before); made once, by the first of the two tests that asks.
   */
  let compressed: Promise<
    Record<'docx' | 'odt', { result: ProcessResult; original: Layout; repacked: Layout }>
  >;
  function compressedAndLaidOut() {
    compressed ??= (async () => {
      const docx = await processor.process(
        documentJob(scratch(), samples.docx!, 'docx', { compression: 'high' }),
      );
      const odt = await processor.process(
        documentJob(scratch(), samples.odt!, 'odt', { compression: 'high' }),
      );
      const [docxIn, docxOut, odtIn, odtOut] = layouts(
        [samples.docx!, docx.path, samples.odt!, odt.path],
        join(scratch(), 'layouts'),
      );
      return {
        docx: { result: docx, original: docxIn!, repacked: docxOut! },
        odt: { result: odt, original: odtIn!, repacked: odtOut! },
      };
    })();
    return compressed;
  }

  for (const format of ['docx', 'odt'] as const) {
    test(`${format} with a photo: ≤ 0.6 × the input, same parts, picture still JPEG, same pages and words`, async () => {
      const input = samples[format]!;
      const { result, original, repacked } = (await compressedAndLaidOut())[format];
      assert.equal(result.format, format);
      assert.equal(result.transformed, false);
      const bytes = statSync(result.path).size;
      assert.ok(bytes <= statSync(input).size * 0.6, `${bytes} of ${statSync(input).size}`);
      const before = readZip(readFileSync(input), ZIP_LIMITS);
      const after = readZip(readFileSync(result.path), ZIP_LIMITS);
      assert.deepEqual(
        after.map((e) => e.name),
        before.map((e) => e.name),
      );
      const picture = after.find((e) => /\.(jpe?g|png)$/i.test(e.name) && /media|Pictures/.test(e.name));
      assert.ok(picture !== undefined);
      assert.equal(picture.data.subarray(0, 3).toString('hex'), 'ffd8ff', 'still a JPEG');
      if (format === 'odt') assert.equal(after[0]!.name, 'mimetype');
      assert.equal(repacked.pages, original.pages);
      for (const word of PHOTO_WORDS) assert.ok(repacked.text.includes(word), word);
    });
  }

  test('a signed document keeps every part as signed; only the container is packed again', async () => {
    const entries = readZip(readFileSync(samples.docx!), ZIP_LIMITS);
    entries.push({ ...entries[0]!, name: '_xmlsignatures/sig1.xml', data: Buffer.from('<Signature/>') });
    const input = join(scratch(), 'signed.docx');
    writeFileSync(input, writeZip(entries));
    const result = await processor.process(documentJob(scratch(), input, 'docx', { compression: 'high' }));
    const after = readZip(readFileSync(result.path), ZIP_LIMITS);
    assert.deepEqual(
      after.map((e) => [e.name, e.data.toString('base64')]),
      entries.map((e) => [e.name, e.data.toString('base64')]),
    );
  });

  test('format pdf from DOCX (the forensics sample) and from ODT; docx from ODT', async () => {
    const pdf = await processor.process(documentJob(scratch(), corpus.docx, 'docx', { format: 'pdf' }));
    assert.equal(pdf.format, 'pdf');
    assert.equal(pdf.transformed, true);
    execFileSync('qpdf', ['--check', pdf.path], { stdio: 'pipe' });
    const info = execFileSync('pdfinfo', [pdf.path], { encoding: 'utf8' });
    assert.match(info, /^Pages:\s+2$/m);
    const docx = await processor.process(documentJob(scratch(), samples.odt!, 'odt', { format: 'docx' }));
    assert.equal(docx.format, 'docx');
    const parts = readZip(readFileSync(docx.path), ZIP_LIMITS).map((e) => e.name);
    assert.ok(parts.includes('word/document.xml'));
    const text = layout(docx.path, join(scratch(), 'layout-converted')).text;
    for (const word of PHOTO_WORDS) assert.ok(text.includes(word), word);
  });

  test('a conversion across families is 422 on document.format', async () => {
    await assert.rejects(
      processor.process(documentJob(scratch(), samples.odt!, 'odt', { format: 'xlsx' })),
      (error: unknown) => error instanceof PressoError && error.errors?.[0]?.field === 'document.format',
    );
  });

  test('a zip bomb is refused from its directory, before anything is inflated', async () => {
    const entries = readZip(readFileSync(samples.docx!), ZIP_LIMITS);
    const bomb = writeZip([
      ...entries,
      { name: 'word/media/zeros.bin', data: Buffer.alloc(50_000_000), time: 0, date: 0 },
    ]);
    assert.ok(bomb.length < 1_000_000);
    const path = join(scratch(), 'bomb.docx');
    writeFileSync(path, bomb);
    const small = createDocumentProcessor(images, { maxUnpackedBytes: 10_000_000 }, DEFAULT_SETTINGS);
    await assert.rejects(small.process(documentJob(scratch(), path, 'docx')), (error: unknown) => {
      assert.ok(error instanceof PressoError);
      assert.equal(error.statusCode, 422);
      assert.match(error.message, /unpacks to more than/);
      return true;
    });
  });

  test('without LibreOffice a conversion reports the missing component', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      await assert.rejects(
        processor.process(documentJob(scratch(), corpus.odt, 'odt', { format: 'pdf' })),
        (error: unknown) => {
          assert.ok(error instanceof PressoError);
          assert.equal(error.code, 'TOOL_MISSING');
          assert.equal(error.statusCode, 422);
          assert.match(error.message, /LibreOffice/);
          return true;
        },
      );
    } finally {
      process.env.PATH = path;
    }
  });

  test('a picture linked by URL is never fetched, with or without the sandbox: LibreOffice gets the copy without it', async () => {
    const server = await startReceiver((_req, res) => void res.writeHead(404).end());
    try {
      const path = join(scratch(), 'linked.odt');
      writeFileSync(path, odtLinking(`${server.origin}/linked.png`));
      // The sandbox's network namespace would stop the request (test/security/sandbox.test.ts); without it,
      // LibreOffice fetched the link before the link was removed from the copy it opens.
      for (const mode of ['bwrap', 'off'] as const) {
        setSandboxMode(mode);
        try {
          const result = await processor.process(documentJob(scratch(), path, 'odt', { format: 'pdf' }));
          assert.equal(result.format, 'pdf');
        } finally {
          setSandboxMode('bwrap');
        }
        assert.equal(server.requests.length, 0, `the conversion (sandbox ${mode}) reached the network`);
      }
    } finally {
      await server.close();
    }
  });

  test('a conversion that outlives its time budget is killed and leaves no process', async () => {
    const hurried = createDocumentProcessor(images, { timeBudgetMs: 200 }, DEFAULT_SETTINGS);
    const job = documentJob(scratch(), samples.docx!, 'docx', { format: 'pdf' });
    await assert.rejects(hurried.process(job), (error: unknown) => {
      assert.ok(error instanceof PressoError);
      assert.match(error.message, /time budget/);
      return true;
    });
    // The process group was killed: nothing still runs with this job's profile directory.
    const running = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    assert.ok(!running.includes(job.workDir), running);
  });
});
