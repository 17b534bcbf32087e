/**
 * The Poppler and qpdf calls the PDF processor makes, each through the shared tool runner (process
 * group, deadline, memory limit): structure check, page count, encryption, rendering. qpdf exits 3 when it
 * succeeded with warnings (a damaged cross-reference table it rebuilt, say): that is a success here, on
 * every qpdf call, and the warnings go to the log; exit 2 (errors) is still the input's failure.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTool, type ToolResult, type ToolRun } from './run-tool.ts';

/** One job's tool context: where and until when tools run, and how much memory each may take. */
export interface PdfToolRun extends ToolRun {
  memoryBytes: number;
  /** Receives what a tool warned about while succeeding (qpdf's repairs), for the log. */
  warn?: (message: string) => void;
}

/** qpdf's own summary line after its warnings: the warnings say it all. */
const QPDF_SUMMARY = 'qpdf: operation succeeded with warnings';

export interface PdfToolOptions {
  /** Keep stdout (its capped tail) for the result. */
  captureStdout?: boolean;
  /** Write stdout to this file instead. */
  stdoutFile?: string;
  /** Largest file the tool may write, when the caller knows what the output should weigh. */
  fileBytes?: number;
  /** Written to the tool's stdin: a password, which must never be on a command line. */
  stdin?: string;
}

export async function pdfTool(
  command: string,
  args: string[],
  run: PdfToolRun,
  options: PdfToolOptions = {},
): Promise<ToolResult> {
  const { captureStdout = false, stdoutFile, fileBytes, stdin } = options;
  const qpdf = command === 'qpdf';
  const result = await runTool(command, qpdf ? ['--warning-exit-0', ...args] : args, run, {
    limits: { memoryBytes: run.memoryBytes, ...(fileBytes === undefined ? {} : { fileBytes }) },
    captureStdout,
    ...(stdoutFile === undefined ? {} : { stdoutFile }),
    ...(stdin === undefined ? {} : { stdin }),
  });
  if (qpdf && run.warn !== undefined) {
    const warnings = result.stderr
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith(QPDF_SUMMARY));
    if (warnings.length > 0) run.warn(`qpdf succeeded with warnings: ${warnings.join('; ')}`);
  }
  return result;
}

let outputs = 0;

/** A tool's whole stdout (longer than the runner's capped tail), written to a file in the job's folder. */
export async function pdfToolOutput(command: string, args: string[], run: PdfToolRun): Promise<string> {
  const file = join(run.workDir, `${command}-${++outputs}.out`);
  await pdfTool(command, args, run, { stdoutFile: file });
  return readFile(file, 'utf8');
}

/** `pdfinfo` fields as printed (`Pages`, `Title`, `Page    1 size`, ...); pages `first`..`last` sized. */
export async function pdfInfo(
  path: string,
  run: PdfToolRun,
  pages?: { first: number; last: number },
): Promise<Map<string, string>> {
  const range = pages === undefined ? [] : ['-f', String(pages.first), '-l', String(pages.last)];
  const { stdout } = await pdfTool('pdfinfo', ['-enc', 'UTF-8', ...range, path], run, {
    captureStdout: true,
  });
  const fields = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return fields;
}

export async function pageCount(path: string, run: PdfToolRun): Promise<number> {
  const pages = Number((await pdfInfo(path, run)).get('Pages'));
  return Number.isInteger(pages) ? pages : 0;
}

/** qpdf's full structural check: every object parsed and every stream decoded. Throws a 422 if broken. */
export async function checkStructure(path: string, run: PdfToolRun): Promise<void> {
  await pdfTool('qpdf', ['--check', path], run);
}

/** Pages (1-based) that draw at least one image, in page order, from `pdfimages -list`. */
export async function imagePages(
  path: string,
  run: PdfToolRun,
): Promise<{ pages: number[]; images: number }> {
  // The whole listing: a PDF with hundreds of images lists more than the runner's capped stdout tail.
  const stdout = await pdfToolOutput('pdfimages', ['-list', path], run);
  const pages = new Set<number>();
  let images = 0;
  for (const line of stdout.split('\n').slice(2)) {
    const [page, , type] = line.trim().split(/\s+/);
    if (page === undefined || !/^\d+$/.test(page)) continue;
    if (type === 'image') images++;
    pages.add(Number(page));
  }
  return { pages: [...pages].sort((a, b) => a - b), images };
}

/** Renders one page to `<prefix>.ppm` (`.pgm` when `gray`) at `dpi`, annotations as a viewer shows them. */
export async function renderPage(
  path: string,
  page: number,
  prefix: string,
  dpi: number,
  gray: boolean,
  run: PdfToolRun,
): Promise<string> {
  const colour = gray ? ['-gray'] : [];
  const args = ['-r', String(dpi), '-f', String(page), '-l', String(page), '-singlefile', ...colour];
  await pdfTool('pdftoppm', [...args, path, prefix], run);
  return `${prefix}.${gray ? 'pgm' : 'ppm'}`;
}
