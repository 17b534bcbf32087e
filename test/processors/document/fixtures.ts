/**
 * Real office documents for the document tests, made by LibreOffice itself (the plan: Debian has
 * no XLSX/PPTX): an HTML page with a corpus photo becomes DOCX and ODT, the forensics ODT becomes RTF; a CSV becomes XLSX and ODS;
 * LibreOffice's own Progress presentation template (Debian package libreoffice-impress) becomes PPTX and
 * ODP; the legacy binary DOC, XLS and PPT come from the same sources. The forensics DOCX is a document made
 * by someone else.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import {
  START_SETTINGS,
  settingsFile,
  settingsXcu,
} from '../../../src/processors/document/office-profile.ts';
import type { ProcessRequest } from '../../../src/processors/processor.ts';
import { corpus } from '../../support/corpus.ts';
import { smallCorpus } from '../../support/small-corpus.ts';
import { scaledMs } from '../../support/time-scale.ts';
import { convertInOneStart } from './soffice-batch.ts';

export const TEMPLATE = '/usr/lib/libreoffice/share/template/common/presnt/Progress.otp';
export const PHOTO_WORDS = ['Presso', 'quick', 'brown'];

/**
 * Conversions already made, by what they depend on: LibreOffice's build, the filter and the input's bytes.
 * A LibreOffice start costs about a second of CPU whatever the document, and the document suites convert the
 * same fixtures (and draw the same pages) in several files and in every run; a conversion made once is
 * copied after that. Kept with node_modules' other caches: deleting it only costs the conversions again.
 */
const CONVERSIONS = resolve(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'node_modules',
  '.cache',
  'presso-soffice',
);
const PROGRAM = '/usr/lib/libreoffice/program';

let build: string | undefined;
function libreOfficeBuild(): string {
  if (build === undefined) {
    const binary = statSync(join(PROGRAM, 'soffice.bin'));
    build = `${readFileSync(join(PROGRAM, 'versionrc'), 'utf8')}\0${binary.size}\0${binary.mtimeMs}`;
  }
  return build;
}

let profile: string | undefined;
/**
 * The process's LibreOffice profile for fixtures: only the start's settings (no render tests at every start),
 * not the processor's safety ones, as a fixture is the document as LibreOffice makes it. Made by the first
 * start, then reused: a fresh profile makes LibreOffice set it up and restart itself, 0.41 CPU-s against 0.28
 * for a set-up one (measured, tiny RTF to PDF). One per process, as two LibreOffices cannot share a profile;
 * the starts of one process never overlap (execFileSync).
 */
function fixtureProfile(): string {
  if (profile === undefined) {
    const made = mkdtempSync(join(tmpdir(), 'presso-soffice-fixtures-'));
    mkdirSync(join(made, 'user'));
    writeFileSync(settingsFile(made), settingsXcu(START_SETTINGS));
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    profile = made;
  }
  return profile;
}

/** One LibreOffice conversion in the process's fixture profile (or its copy from an earlier one); returns the output path. */
export function soffice(input: string, filter: string, outDir: string): string {
  return sofficeAll([input], filter, outDir)[0]!;
}

/**
 * Each input converted with one filter, those not made before in a single LibreOffice start (a start costs
 * about a second of CPU, each further document of a call a fraction of that); returns the outputs' paths,
 * in the inputs' order. Inputs may share a name: then each is converted under its position's name.
 */
export function sofficeAll(inputs: readonly string[], filter: string, outDir: string): string[] {
  mkdirSync(outDir, { recursive: true });
  const extension = filter.split(':')[0]!;
  const stem = (input: string) => basename(input).replace(/\.[^.]+$/, '');
  // Converted where they are (a relative link resolves as before) unless two share a name.
  const renamed = new Set(inputs.map(stem)).size < inputs.length;
  const names = inputs.map((input, i) => (renamed ? `${i + 1}-${stem(input)}` : stem(input)));
  const outputs = names.map((name) => join(outDir, `${name}.${extension}`));
  const made = inputs.map((input) => {
    const key = createHash('sha256')
      .update(libreOfficeBuild())
      .update(`\0${filter}\0`)
      .update(readFileSync(input))
      .digest('hex');
    return join(CONVERSIONS, `${key}.${extension}`);
  });
  const missing: number[] = [];
  for (const [i, copy] of made.entries()) {
    if (existsSync(copy)) copyFileSync(copy, outputs[i]!);
    else missing.push(i);
  }
  if (missing.length === 0) return outputs;
  // LibreOffice names each output after its input: inputs that share a name are copied under their own.
  const named = join(outDir, 'inputs');
  const sources = missing.map((i) => {
    if (!renamed) return inputs[i]!;
    const source = join(named, `${names[i]}${extname(inputs[i]!)}`);
    mkdirSync(named, { recursive: true });
    copyFileSync(inputs[i]!, source);
    return source;
  });
  execFileSync(
    'soffice',
    [
      `-env:UserInstallation=file://${fixtureProfile()}`,
      '--headless',
      '--convert-to',
      filter,
      '--outdir',
      outDir,
      ...sources,
    ],
    { stdio: 'ignore', timeout: scaledMs(120_000 * missing.length) },
  );
  // Written aside and renamed: test files running at once may make the same conversion.
  mkdirSync(CONVERSIONS, { recursive: true });
  for (const i of missing) {
    const partial = `${made[i]}.${process.pid}.partial`;
    copyFileSync(outputs[i]!, partial);
    renameSync(partial, made[i]!);
  }
  return outputs;
}

export interface OfficeSamples {
  docx: string;
  odt: string;
  rtf: string;
  xlsx: string;
  ods: string;
  pptx: string;
  odp: string;
  doc: string;
  xls: string;
  ppt: string;
}

/** An HTML page with the title, the sentence of PHOTO_WORDS and `picture` (JPEG or PNG bytes) 600 px wide. */
export function photoPage(dir: string, picture: Buffer, mime = 'image/jpeg'): string {
  const html = join(dir, `photo-page-${mime.split('/')[1]}.html`);
  writeFileSync(
    html,
    '<html><body><h1>Presso document</h1><p>The quick brown fox jumps over the lazy dog.</p>' +
      `<img src="data:${mime};base64,${picture.toString('base64')}" width="600"></body></html>`,
  );
  return html;
}

/**
 * Each format once, in `dir`; the DOCX and ODT carry a 640×480 photo (the lossless crop of the Canon corpus
 * JPEG, small-corpus.ts: the page draws it 600 px wide, and the image search costs by the pixel).
 */
export function makeOfficeSamples(dir: string, formats: (keyof OfficeSamples)[]): Partial<OfficeSamples> {
  const html = photoPage(dir, readFileSync(smallCorpus.canonPhoto));
  const csv = join(dir, 'sheet.csv');
  writeFileSync(
    csv,
    `Item,Count\n${Array.from({ length: 40 }, (_, i) => `Presso row ${i},${i * 7}`).join('\n')}\n`,
  );
  // From HTML, `--convert-to` (Writer/Web's own export path); the rest in one LibreOffice start.
  const fromHtml: Partial<Record<keyof OfficeSamples, () => string>> = {
    docx: () => soffice(html, 'docx:MS Word 2007 XML', join(dir, 'docx')),
    odt: () => soffice(html, 'odt', join(dir, 'odt')),
  };
  // Writer/Web (the HTML import) has no RTF export: the RTF comes from the forensics ODT.
  const others: Record<string, [input: string, exportFilter: string]> = {
    rtf: [corpus.odt, 'Rich Text Format'],
    xlsx: [csv, 'Calc MS Excel 2007 XML'],
    ods: [csv, 'calc8'],
    pptx: [TEMPLATE, 'Impress MS PowerPoint 2007 XML'],
    odp: [TEMPLATE, 'impress8'],
    doc: [corpus.odt, 'MS Word 97'],
    xls: [csv, 'MS Excel 97'],
    ppt: [TEMPLATE, 'MS PowerPoint 97'],
  };
  const batched = formats.filter((format) => fromHtml[format] === undefined);
  const made = sofficeEach(
    batched.map((format) => {
      const [input, exportFilter] = others[format]!;
      return { input, exportFilter, extension: format, outDir: join(dir, format) };
    }),
    dir,
  );
  return Object.fromEntries(
    formats.map((format) => [format, fromHtml[format]?.() ?? made[batched.indexOf(format)]!]),
  );
}

/**
 * Conversions each with its own export filter, those not made before in one LibreOffice start
 * (soffice-batch.ts); returns the outputs' paths, `<input name>.<extension>` in each `outDir`.
 */
export function sofficeEach(
  conversions: readonly { input: string; exportFilter: string; extension: string; outDir: string }[],
  dir: string,
): string[] {
  const outputs = conversions.map(({ input, extension, outDir }) => {
    mkdirSync(outDir, { recursive: true });
    return join(outDir, `${basename(input).replace(/\.[^.]+$/, '')}.${extension}`);
  });
  const made = conversions.map(({ input, exportFilter, extension }) => {
    const key = createHash('sha256')
      .update(libreOfficeBuild())
      .update(`\0macro:${exportFilter}\0`)
      .update(readFileSync(input))
      .digest('hex');
    return join(CONVERSIONS, `${key}.${extension}`);
  });
  const missing = conversions.flatMap((conversion, i) => {
    if (!existsSync(made[i]!)) return [{ ...conversion, output: outputs[i]!, i }];
    copyFileSync(made[i]!, outputs[i]!);
    return [];
  });
  convertInOneStart(missing, dir);
  mkdirSync(CONVERSIONS, { recursive: true });
  for (const { output, i } of missing) {
    const partial = `${made[i]}.${process.pid}.partial`;
    copyFileSync(output, partial);
    renameSync(partial, made[i]!);
  }
  return outputs;
}

let jobs = 0;

export function documentJob(
  dir: string,
  path: string,
  format: string,
  params: Record<string, unknown> = {},
): ProcessRequest {
  const workDir = join(dir, `job-${++jobs}`);
  mkdirSync(workDir, { recursive: true });
  return {
    input: {
      path,
      name: `input.${format}`,
      kind: 'document',
      format,
      mime: 'application/octet-stream',
      size: statSync(path).size,
    },
    params,
    workDir,
    signal: new AbortController().signal,
    wantMetadata: false,
  };
}

/** LibreOffice lays the document out to PDF; the page count of that PDF and its text. */
export function layout(path: string, dir: string): { pages: number; text: string } {
  return layouts([path], dir)[0]!;
}

/** layout of each document, laid out to PDF by one LibreOffice start. */
export function layouts(paths: readonly string[], dir: string): { pages: number; text: string }[] {
  return sofficeAll(paths, 'pdf', dir).map((pdf) => {
    const info = execFileSync('pdfinfo', [pdf], { encoding: 'utf8' });
    return {
      pages: Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]),
      text: execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' }),
    };
  });
}
