/**
 * Real PDFs for the PDF tests: one with photos (corpus JPEGs at quality 95) and text, written by the test
 * PDF writer; the forensics samples (LibreOffice text PDFs, two encrypted); and hostile files built by
 * hand. Paths are made once per test file in its own directory.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { ProcessRequest } from '../../../src/processors/processor.ts';
import { corpus } from '../../support/corpus.ts';
import { assemblePdf, buildPdf, type PdfImage } from '../../support/pdf-writer.ts';

const forensics = join(corpus.pdf, '..');

export const samples = {
  /** LibreOffice Writer, 2 pages of text, embedded subset fonts. */
  text: corpus.pdf,
  /** The same document encrypted with user password `A5d` (R 3). */
  encrypted: join(forensics, 'a-text-pass-A5d.pdf'),
  password: 'A5d',
} as const;

/** Words that are on the photo PDF's pages; pdftotext must still find them in every output. */
export const PHOTO_WORDS = ['Presso', 'quick', 'astronaut', 'Ghostscript', 'Lorem'];

async function jpegImage(source: string, width: number, x: number, y: number, w: number): Promise<PdfImage> {
  const { data, info } = await sharp(source).rotate().resize(width).jpeg({ quality: 95 }).toBuffer({
    resolveWithObject: true,
  });
  return { jpeg: data, width: info.width, height: info.height, x, y, w, h: (w * info.height) / info.width };
}

/** 3 Letter pages: a 1200 px photo, the 512 px astronaut, text only. About 360 KB. */
export async function writePhotoPdf(dir: string): Promise<string> {
  const path = join(dir, 'photos.pdf');
  const pdf = buildPdf(
    [
      {
        lines: ['Presso compresses PDF files', 'The quick brown fox jumps over the lazy dog'],
        images: [await jpegImage(corpus.gpsPhoto, 1200, 72, 200, 468)],
      },
      {
        lines: ['Second page with the astronaut', 'Ghostscript and qpdf engines'],
        images: [await jpegImage(corpus.astronaut, 512, 100, 150, 400)],
      },
      { lines: ['Third page has only text', 'Lorem ipsum dolor sit amet'] },
    ],
    { title: 'Test photos', author: 'Presso tests' },
  );
  writeFileSync(path, pdf);
  return path;
}

const catalog = '<< /Type /Catalog /Pages 2 0 R >>';
const PASSWD_PS =
  '/F (/etc/passwd) (r) file def /S 200 string def F S readstring pop ' +
  '/Helvetica findfont 10 scalefont setfont 72 720 moveto show showpage';

/** Hostile and broken files, each refused or neutralised. */
export function writeHostilePdfs(dir: string) {
  const save = (name: string, bytes: Buffer | string) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  const page = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>';
  const content = '/P0 Do';
  return {
    /** The page tree lists itself among its kids: an endless page tree. */
    loop: save('loop.pdf', assemblePdf([catalog, '<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>', page])),
    /** 200,000 nested arrays in one object: a parser that recurses without a limit runs out of stack. */
    nested: save(
      'nested.pdf',
      assemblePdf([
        catalog,
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Bomb ${'['.repeat(200_000)}${']'.repeat(200_000)} >>`,
      ]),
    ),
    /** A PostScript XObject that reads /etc/passwd and draws it as text. */
    psXObject: save(
      'ps-xobject.pdf',
      assemblePdf([
        catalog,
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /P0 5 0 R >> >> >>',
        `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
        `<< /Type /XObject /Subtype /PS /Length ${PASSWD_PS.length} >>\nstream\n${PASSWD_PS}\nendstream`,
      ]),
    ),
    /** PostScript behind a PDF header: detected as PDF, then run by whatever reads it. */
    postscript: save('postscript.pdf', `%PDF-1.4\n%!PS-Adobe-3.0\n${PASSWD_PS}\n`),
    /** Plain PostScript named .pdf: detection refuses it (not a PDF); Ghostscript without -dSAFER would read the file. */
    pureScript: save('script.pdf', `%!PS-Adobe-3.0\n${PASSWD_PS}\n`),
    /** The text sample cut short. */
    truncated: save('truncated.pdf', readFileSync(samples.text).subarray(0, 9000)),
  };
}

let jobs = 0;

/** A job as the runner makes it: a fresh work dir under `dir`. */
export function pdfJob(
  dir: string,
  path: string,
  params: Record<string, unknown> = {},
  wantMetadata = false,
): ProcessRequest {
  const workDir = join(dir, `job-${++jobs}`);
  mkdirSync(workDir, { recursive: true });
  return {
    input: {
      path,
      name: 'input.pdf',
      kind: 'pdf',
      format: 'pdf',
      mime: 'application/pdf',
      size: statSync(path).size,
    },
    params,
    workDir,
    signal: new AbortController().signal,
    wantMetadata,
  };
}

/** Independent checks of an output: qpdf's structural check and Poppler's page count and text. */
export function pdfFacts(path: string): { pages: number; text: string; optimized: boolean } {
  execFileSync('qpdf', ['--check', path], { stdio: 'pipe' });
  const info = execFileSync('pdfinfo', [path], { encoding: 'utf8' });
  return {
    pages: Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]),
    optimized: /^Optimized:\s+yes/m.test(info),
    text: execFileSync('pdftotext', [path, '-'], { encoding: 'utf8' }),
  };
}

/** Every page drawn at `dpi` as PPM files (PNG would cost pdftoppm ten times the CPU), in page order. */
export function renderAll(path: string, prefix: string, dpi = 96): string[] {
  execFileSync('pdftoppm', ['-r', String(dpi), path, prefix]);
  const pages = Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [path], { encoding: 'utf8' }))?.[1]);
  const width = String(pages).length;
  return Array.from({ length: pages }, (_, i) => `${prefix}-${String(i + 1).padStart(width, '0')}.ppm`);
}
