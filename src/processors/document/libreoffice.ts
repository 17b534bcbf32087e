/**
 * LibreOffice headless conversions, each through the shared tool runner: its own profile directory (two
 * soffice processes sharing one profile make the second exit 1 with no output), the job's directory as
 * cwd, a memory limit, and the whole process group killed at the deadline or on abort (soffice.bin is a
 * child of the soffice launcher). Macros do not run: a fresh profile has LibreOffice's default macro
 * security (only signed macros from trusted sources), and a headless conversion never asks to enable them.
 * No network and no file outside the job: LibreOffice would fetch the URLs a document links (pictures, OLE
 * objects; measured: an ODT linking http://127.0.0.1/ made it send OPTIONS and GET there) and read the
 * `file:///` ones, so it runs in the tool runner's sandbox like every tool, with a network namespace whose
 * only interface is a loopback nothing listens on and only the job's folder to read.
 */
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { runTool, type ToolRun } from '../shared/run-tool.ts';

export interface OfficeRun extends ToolRun {
  memoryBytes: number;
}

/** LibreOffice's export filters, by the output format's name. */
const FILTERS: Record<string, string> = {
  pdf: 'pdf:writer_pdf_Export',
  docx: 'docx:MS Word 2007 XML',
  xlsx: 'xlsx:Calc MS Excel 2007 XML',
  pptx: 'pptx:Impress MS PowerPoint 2007 XML',
};

/** The name clients and the README see when LibreOffice is not installed. */
export const LIBREOFFICE = 'LibreOffice (soffice)';

let conversions = 0;

/**
 * Converts `input` (whose format decides the import filter, through its extension) to `format`; returns
 * the output's path. `pdf` from a text document, spreadsheet or presentation picks the matching exporter.
 */
export async function convert(
  input: string,
  inputFormat: string,
  format: string,
  run: OfficeRun,
): Promise<string> {
  const id = ++conversions;
  const dir = join(run.workDir, `office-${id}`);
  const outDir = join(dir, 'out');
  await mkdir(outDir, { recursive: true });
  // soffice picks its import filter from the extension; the job's input has none.
  const named = join(dir, `document.${inputFormat}`);
  await copyFile(input, named);
  const filter = format === 'pdf' ? 'pdf' : FILTERS[format];
  if (filter === undefined) throw new Error(`no LibreOffice filter for ${format}`);
  const args = [
    `-env:UserInstallation=file://${join(dir, 'profile')}`,
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
    named,
  ];
  await runTool('soffice', args, run, { label: LIBREOFFICE, limits: { memoryBytes: run.memoryBytes } });
  // soffice exits 0 even when the import failed: the output file is the only proof of success.
  const written = (await readdir(outDir)).find((name) => name.endsWith(`.${format}`));
  if (written === undefined) throw new UnprocessableInputError(`LibreOffice could not open the document.`);
  return join(outDir, written);
}
