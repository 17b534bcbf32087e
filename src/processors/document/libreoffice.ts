/**
 * LibreOffice headless conversions, each through the shared tool runner: its own profile directory (two
 * soffice processes sharing one profile make the second exit 1 with no output), the job's directory as
 * cwd, a memory limit, and the whole process group killed at the deadline or on abort (soffice.bin is a
 * child of the soffice launcher). Macros do not run: a fresh profile has LibreOffice's default macro
 * security (only signed macros from trusted sources), and a headless conversion never asks to enable them.
 * No network: LibreOffice would fetch the URLs a document links (pictures, OLE objects), so it runs in a
 * new user and network namespace (`unshare -rn`) whose only interface is a loopback nothing listens on.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolMissingError, UnprocessableInputError } from '../../errors/catalog.ts';
import type { Deadline } from '../shared/deadline.ts';
import { runTool } from '../shared/run-tool.ts';

export interface OfficeRun {
  deadline: Deadline;
  signal: AbortSignal;
  workDir: string;
  memoryBytes: number;
  /** `isolated`: LibreOffice gets a network namespace of its own (see the top of this file). */
  network: 'isolated' | 'host';
}

/** util-linux, by absolute path: a PATH without it must not silently give LibreOffice the network. */
const UNSHARE = '/usr/bin/unshare';
let namespacesWork: Promise<boolean> | undefined;

/** Whether this host lets an unprivileged process make user and network namespaces; asked once. */
function networkNamespacesWork(): Promise<boolean> {
  // Runs unshare itself inside (not `true`): an absolute path, so the answer cannot depend on PATH.
  namespacesWork ??= new Promise((resolve) =>
    execFile(UNSHARE, ['-rn', UNSHARE, '--version'], (error) => resolve(!error)),
  );
  return namespacesWork;
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
  const soffice = [
    'soffice',
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
  if (run.network === 'isolated' && !(await networkNamespacesWork())) {
    throw new ToolMissingError(
      'Network isolation for LibreOffice (user namespaces through `unshare -rn`; an operator may set ' +
        'PRESSO_DOCUMENT_NETWORK=host instead)',
    );
  }
  const [command, ...args] = run.network === 'isolated' ? [UNSHARE, '-rn', ...soffice] : soffice;
  try {
    await runTool(command!, args, run, { label: LIBREOFFICE, limits: { memoryBytes: run.memoryBytes } });
  } catch (error) {
    // Through unshare, a missing soffice is unshare's exec failure, not a spawn ENOENT.
    if (error instanceof UnprocessableInputError && /failed to execute soffice/.test(String(error.cause))) {
      throw new ToolMissingError(LIBREOFFICE, error);
    }
    throw error;
  }
  // soffice exits 0 even when the import failed: the output file is the only proof of success.
  const written = (await readdir(outDir)).find((name) => name.endsWith(`.${format}`));
  if (written === undefined) throw new UnprocessableInputError(`LibreOffice could not open the document.`);
  return join(outDir, written);
}
