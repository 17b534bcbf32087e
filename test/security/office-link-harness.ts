/**
 * The server and the planted files of the office link tests: the real app (app.inject) with the real
 * document processor; a PNG of one colour no test document draws, a text file and an ODT holding a random
 * token, all in the server's data directory. A conversion's PDF is rendered (pdftoppm) and read (pdftotext)
 * to find them. LibreOffice-made inputs (a PPTX to edit; DOC, XLS and PPT with a linked picture) are made
 * before anything is planted, so LibreOffice cannot have copied the picture into them.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import sharp from 'sharp';
import { createDocumentProcessor } from '../../src/processors/document/document-processor.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { type CompletedResult, download } from '../api/helpers.ts';
import { soffice, sofficeEach } from '../processors/document/fixtures.ts';
import { DEFAULT_SETTINGS } from '../support/host-settings.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';
import {
  docx,
  odf,
  odpSlide,
  pptxPicture,
  relationship,
  wordPicture,
  xlsxPicture,
} from './office-link-documents.ts';

/** A green no test document draws. */
const PLANTED_COLOUR = { r: 17, g: 201, b: 77 };

export interface OfficeLinkHarness {
  presso: TestApp;
  token: string;
  /** file:// URLs and paths of the planted files. */
  png: string;
  txt: string;
  odt: string;
  url(path: string): string;
  /** A PPTX LibreOffice made, with one slide saying "Visible slide". */
  pptxBase: Buffer;
  /** DOC, XLS and PPT, each with a picture linked to the planted PNG. */
  legacy: { doc: Buffer; xls: Buffer; ppt: Buffer };
  /** The document converted to PDF through the API (200 expected); the PDF's bytes. */
  toPdf(bytes: Buffer, name: string): Promise<Buffer>;
  /** What of the planted files the PDF shows, and whether `words` of the document itself are missing. */
  problems(pdf: Buffer, name: string, words?: string): string[];
}

/**
 * Registers the hooks at the level it is called; the harness is ready inside the tests. `made`: whether the
 * tests need the LibreOffice-made inputs (`pptxBase`, `legacy`), a few seconds of LibreOffice each.
 */
export function officeLinkHarness(made = true): OfficeLinkHarness {
  const harness = {
    token: `PLANTED-${randomUUID()}`,
    url: (path: string) => `file://${path}`,
  } as OfficeLinkHarness;
  let scratch = '';
  before(async () => {
    const presso = await buildTestApp({
      processors: [createDocumentProcessor(createImageProcessor(), {}, DEFAULT_SETTINGS)],
    });
    scratch = join(presso.dataDir, 'test-scratch');
    mkdirSync(scratch);
    const write = (name: string, bytes: Buffer) => {
      writeFileSync(join(scratch, name), bytes);
      return join(scratch, name);
    };
    const planted = (name: string) => join(presso.dataDir, name);
    const pngUrl = harness.url(planted('planted.png'));
    if (made) {
      const slides = write('slides.odp', odf('odp', odpSlide('Visible slide')));
      const pptxBase = readFileSync(soffice(slides, 'pptx', scratch));
      const linkedDocx = docx(wordPicture('r:link="rId5"'), relationship('rId5', 'image', pngUrl));
      harness.pptxBase = pptxBase;
      // The three legacy files in one LibreOffice start (soffice-batch.ts), each with its own export filter.
      const [doc, xls, ppt] = sofficeEach(
        [
          ['doc', 'MS Word 97', write('l.docx', linkedDocx)],
          ['xls', 'MS Excel 97', write('l.xlsx', xlsxPicture(pngUrl))],
          ['ppt', 'MS PowerPoint 97', write('l.pptx', pptxPicture(pptxBase, pngUrl))],
        ].map(([extension, exportFilter, input]) => ({
          input: input!,
          exportFilter: exportFilter!,
          extension: extension!,
          outDir: join(scratch, extension!),
        })),
        scratch,
      ).map((path) => readFileSync(path));
      harness.legacy = { doc: doc!, xls: xls!, ppt: ppt! };
      // Each still links the picture (by its path, in 8-bit or UTF-16 text): else its test proves nothing.
      for (const [format, bytes] of Object.entries(harness.legacy)) {
        const linked = ['latin1', 'utf16le'].some((encoding) =>
          bytes.includes(Buffer.from('planted.png', encoding as BufferEncoding)),
        );
        assert.ok(linked, `the ${format.toUpperCase()} made by LibreOffice links the planted picture`);
      }
    }
    const square = { width: 64, height: 64, channels: 3 as const, background: PLANTED_COLOUR };
    writeFileSync(planted('planted.png'), await sharp({ create: square }).png().toBuffer());
    writeFileSync(planted('planted.txt'), `${harness.token}\n`);
    writeFileSync(planted('planted.odt'), odf('odt', `<text:p>${harness.token}</text:p>`));
    Object.assign(harness, {
      presso,
      png: planted('planted.png'),
      txt: planted('planted.txt'),
      odt: planted('planted.odt'),
    });
  });
  after(() => harness.presso?.close());

  harness.toPdf = async (bytes, name) => {
    const response = await harness.presso.upload(bytes, { document: { format: 'pdf' } }, undefined, name);
    const body = (await response.json()) as CompletedResult & { message?: string };
    assert.equal(response.status, 200, `${name}: ${body.message}`);
    return download(harness.presso, body);
  };

  harness.problems = (pdf, name, words = 'Visible') => {
    const dir = join(scratch, `render-${randomUUID()}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'out.pdf'), pdf);
    const found: string[] = [];
    const text = execFileSync('pdftotext', [join(dir, 'out.pdf'), '-'], { encoding: 'utf8' });
    if (!text.includes(words)) found.push(`${name}: the document's own words "${words}" are missing`);
    if (text.includes(harness.token)) found.push(`${name}: the planted text file's token is in the PDF`);
    execFileSync('pdftoppm', ['-r', '30', join(dir, 'out.pdf'), join(dir, 'page')]);
    const pixels = readdirSync(dir)
      .filter((file) => file.endsWith('.ppm'))
      .reduce((sum, file) => sum + plantedPixels(readFileSync(join(dir, file))), 0);
    if (pixels > 0) found.push(`${name}: ${pixels} pixels of the planted picture were drawn`);
    return found;
  };
  return harness;
}

/** Pixels of a binary PPM (P6) within a small distance of the planted colour. */
function plantedPixels(ppm: Buffer): number {
  let newlines = 0;
  let at = 0;
  while (newlines < 3) if (ppm[at++] === 0x0a) newlines++;
  const near = (value: number, target: number) => Math.abs(value - target) <= 16;
  let count = 0;
  for (; at + 2 < ppm.length; at += 3) {
    if (
      near(ppm[at]!, PLANTED_COLOUR.r) &&
      near(ppm[at + 1]!, PLANTED_COLOUR.g) &&
      near(ppm[at + 2]!, PLANTED_COLOUR.b)
    )
      count++;
  }
  return count;
}
