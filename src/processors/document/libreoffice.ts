/**
 * LibreOffice headless conversions, each through the shared tool runner: its own profile directory in the
 * job's folder (two soffice processes sharing one profile make the second exit 1 with no output), a private
 * copy of the process's template (office-template.ts: LibreOffice's first start, done once per process), the
 * job's directory as cwd, a memory limit, and the whole process group killed at the deadline or on abort
 * (soffice.bin is a child of the soffice launcher). Macros do not run: the profile disables them at the
 * highest security level (office-profile.ts), and a headless conversion never asks to enable them.
 * No network and no file outside the job: LibreOffice would fetch the URLs a document links (pictures, OLE
 * objects; measured: an ODT linking http://127.0.0.1/ made it send OPTIONS and GET there) and read the
 * `file:///` ones, so it runs in the tool runner's sandbox like every tool, with a network namespace whose
 * only interface is a loopback nothing listens on and only the job's folder to read.
 *
 * No file outside the document: LibreOffice reads the local files a document links, so it never opens the
 * input itself but a copy without those links (external-links.ts for the ZIP formats, rtf-links.ts for RTF
 * fields), in a profile that blocks linked pictures and link updates (office-profile.ts). RTF, DOC, XLS and
 * PPT are first converted to the OpenDocument format of their family (LibreOffice keeps their links as
 * links there), and that copy, with its links removed, is what is converted to the asked format.
 */
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { Deadline } from '../shared/deadline.ts';
import { runTool, type ToolRun } from '../shared/run-tool.ts';
import { dropExternalLinks } from './external-links.ts';
import { OfficeProfiles } from './office-template.ts';
import { dropRtfFileFields } from './rtf-links.ts';
import { readZip, writeZip, type ZipLimits } from './zip.ts';

/** What one soffice run needs: the tool run and LibreOffice's memory limit. */
interface SofficeRun extends ToolRun {
  memoryBytes: number;
}

export interface OfficeRun extends SofficeRun {
  /** The part and size limits a document's ZIP container is read within. */
  zip: ZipLimits;
}

const ZIP_FORMATS = new Set(['docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp']);
/** The OpenDocument format a file without a ZIP container is converted to before its links are removed. */
const OPEN_DOCUMENT_OF: Record<string, string> = { rtf: 'odt', doc: 'odt', xls: 'ods', ppt: 'odp' };

/** LibreOffice's export filters, by the output format's name. */
const FILTERS: Record<string, string> = {
  pdf: 'pdf:writer_pdf_Export',
  docx: 'docx:MS Word 2007 XML',
  xlsx: 'xlsx:Calc MS Excel 2007 XML',
  pptx: 'pptx:Impress MS PowerPoint 2007 XML',
  odt: 'odt',
  ods: 'ods',
  odp: 'odp',
};

/** The name clients and the README see when LibreOffice is not installed. */
export const LIBREOFFICE = 'LibreOffice (soffice)';

/**
 * Converts `input` (whose format decides the import filter, through its extension) to `format`; returns
 * the output's path. `pdf` from a text document, spreadsheet or presentation picks the matching exporter.
 * LibreOffice only ever sees a copy without links out of the document (see the top of this file).
 */
export async function convert(
  input: string,
  inputFormat: string,
  format: string,
  run: OfficeRun,
): Promise<string> {
  const copy = await withoutLinks(input, inputFormat, run);
  return runSoffice(copy.path, copy.format, format, run);
}

/**
 * Converts several documents of one job and one format in a single LibreOffice start (about 0.85 CPU-s of
 * a small document's 1 CPU-s is the start, measured): the path of each output, or undefined for a document
 * LibreOffice could not open. The documents are copied under distinct names into one folder (LibreOffice
 * names each output after its input), each without its links, as `convert` does.
 */
export async function convertAll(
  inputs: readonly string[],
  inputFormat: string,
  format: string,
  run: OfficeRun,
): Promise<(string | undefined)[]> {
  const copies = [];
  for (const input of inputs) copies.push(await withoutLinks(input, inputFormat, run));
  const dir = await officeFolder(run);
  const named: string[] = [];
  for (const [index, copy] of copies.entries()) {
    const path = join(dir, `document-${index + 1}.${copy.format}`);
    await rename(copy.path, path);
    named.push(path);
  }
  // Every copy has the same format: `withoutLinks` gives one format per input format.
  return runSofficeMany(named, copies[0]?.format ?? inputFormat, format, run);
}

/** A copy of the document LibreOffice may open: in a folder of its own, named with its format's extension. */
async function withoutLinks(
  input: string,
  inputFormat: string,
  run: OfficeRun,
): Promise<{ path: string; format: string }> {
  let bytes: Buffer = await readFile(input);
  let format = inputFormat;
  const stop = AbortSignal.any([run.signal, run.deadline.signal]);
  if (!ZIP_FORMATS.has(format)) {
    if (format === 'rtf') bytes = (await dropRtfFileFields(bytes, stop)).data;
    const openDocument = OPEN_DOCUMENT_OF[format];
    if (openDocument === undefined) throw new Error(`no OpenDocument format for ${format}`);
    const legacy = await officeFolder(run);
    await writeFile(join(legacy, `document.${format}`), bytes);
    bytes = await readFile(await runSoffice(join(legacy, `document.${format}`), format, openDocument, run));
    format = openDocument;
  }
  const entries = readZip(bytes, run.zip);
  await dropExternalLinks(entries, stop);
  const dir = await officeFolder(run);
  const path = join(dir, `document.${format}`);
  // A throwaway copy: fast deflate. Written from the parsed entries, so LibreOffice reads what was checked.
  await writeFile(path, writeZip(entries, 1));
  return { path, format };
}

let conversions = 0;

async function officeFolder(run: OfficeRun): Promise<string> {
  const dir = join(run.workDir, `office-${++conversions}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

/** A trivial document's first start takes 1–2 s; this is only the bound of a stuck one. */
const TEMPLATE_TIME_MS = 120_000;

/**
 * The process's profiles (office-template.ts): the template is made by this module's own conversion of a
 * one-word RTF to PDF, in the template's folder and with no job's signal, so a job that is cancelled while it
 * waits does not stop it for the others.
 */
export const officeProfiles = new OfficeProfiles(async (folder, memoryBytes) => {
  const named = join(folder, 'template.rtf');
  await writeFile(named, '{\\rtf1\\ansi Presso}');
  const run: SofficeRun = {
    deadline: new Deadline(TEMPLATE_TIME_MS, "LibreOffice's profile template"),
    signal: new AbortController().signal,
    workDir: folder,
    jobDir: folder,
    memoryBytes,
  };
  // In `<folder>/profile`, the fresh profile OfficeProfiles wrote.
  await runSoffice(named, 'rtf', 'pdf', run, async () => {});
});

/** Writes a run's profile folder; by default a copy of the process's template. */
type PrepareProfile = (profile: string) => Promise<unknown>;

/** One soffice run converting `named` (in a folder of its own, named with its extension) to `format`. */
async function runSoffice(
  named: string,
  inputFormat: string,
  format: string,
  run: SofficeRun,
  prepare?: PrepareProfile,
): Promise<string> {
  const [written] = await runSofficeMany([named], inputFormat, format, run, prepare);
  // soffice exits 0 even when the import failed: the output file is the only proof of success.
  if (written === undefined) throw new UnprocessableInputError(`LibreOffice could not open the document.`);
  return written;
}

/**
 * One soffice run converting every file of `named` (all in one folder, distinct names, one extension) to
 * `format`: the output of each, or undefined where LibreOffice wrote none (it goes on to the next file). Its
 * profile is `<that folder>/profile`, written by `prepare`.
 */
async function runSofficeMany(
  named: readonly string[],
  inputFormat: string,
  format: string,
  run: SofficeRun,
  prepare: PrepareProfile = (profile) => officeProfiles.prepare(profile, run.memoryBytes),
): Promise<(string | undefined)[]> {
  const dir = dirname(named[0] ?? run.workDir);
  const outDir = join(dir, `out-${inputFormat}-${format}`);
  await mkdir(outDir, { recursive: true });
  const filter = format === 'pdf' ? 'pdf' : FILTERS[format];
  if (filter === undefined) throw new Error(`no LibreOffice filter for ${format}`);
  const profile = join(dir, 'profile');
  await prepare(profile);
  const args = [
    `-env:UserInstallation=file://${profile}`,
    '--headless',
    '--invisible',
    '--nologo',
    '--nodefault',
    '--norestore',
    '--nolockcheck',
    '--convert-to',
    filter,
    '--outdir',
    outDir,
    ...named,
  ];
  await runTool('soffice', args, run, { label: LIBREOFFICE, limits: { memoryBytes: run.memoryBytes } });
  const written = new Set(await readdir(outDir));
  return named.map((path) => {
    const name = `${basename(path, extname(path))}.${format}`;
    return written.has(name) ? join(outDir, name) : undefined;
  });
}
