/**
 * A PDF's objects as qpdf's JSON (version 2) describes them, and edits written back through qpdf's
 * `--update-from-json`: only the objects named in an update change, every other object is copied byte
 * for byte, so text, fonts and vector art render exactly as before. Objects nothing refers to any more
 * (private data whose last reference an update removed) are not written by qpdf at all.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { type PdfToolRun, pdfTool } from './pdf-tools.ts';

/** The JSON of a PDF's objects is about a tenth of the file; past this the edit is not worth its memory. */
const MAX_JSON_BYTES = 256 * 1024 * 1024;

export type PdfValue = string | number | boolean | null | PdfValue[] | { [key: string]: PdfValue };
export type PdfDict = { [key: string]: PdfValue };

/** One object: a plain value, or a stream with its dictionary (stream data is not read). */
export interface PdfObject {
  value?: PdfValue;
  stream?: { dict: PdfDict };
}

export interface PdfObjects {
  /** qpdf's header entry (JSON version, max object id), given back with every update. */
  header: PdfValue;
  /** Keyed `obj:12 0 R`. */
  objects: Record<string, PdfObject>;
}

/** An update: a new dictionary or value, and for streams optionally new (already encoded) data. */
export type PdfObjectUpdate = { value: PdfValue } | { stream: { dict: PdfDict; datafile?: string } };

export async function readObjects(path: string, run: PdfToolRun): Promise<PdfObjects> {
  const file = join(run.workDir, 'objects.json');
  const args = ['--json=2', '--json-key=qpdf', '--json-stream-data=none', path];
  await pdfTool('qpdf', args, run, false, file);
  if ((await stat(file)).size > MAX_JSON_BYTES) {
    throw new UnprocessableInputError('The PDF has too many objects to edit in place.');
  }
  const parsed = JSON.parse(await readFile(file, 'utf8')) as { qpdf?: [PdfValue, Record<string, PdfObject>] };
  const [header, objects] = parsed.qpdf ?? [];
  if (header === undefined || objects === undefined) throw new Error('qpdf wrote no object list');
  return { header, objects };
}

/** Writes `input` with `updates` applied to `output` (structure passes come after, in engines.ts). */
export async function applyUpdates(
  input: string,
  output: string,
  pdf: PdfObjects,
  updates: Map<string, PdfObjectUpdate>,
  run: PdfToolRun,
): Promise<void> {
  const file = join(run.workDir, `update-${Date.now().toString(36)}.json`);
  await writeFile(file, JSON.stringify({ qpdf: [pdf.header, Object.fromEntries(updates)] }));
  await pdfTool('qpdf', [input, `--update-from-json=${file}`, output], run);
}

/** `12` of `obj:12 0 R`. */
export function objectNumber(key: string): number {
  return Number(/^obj:(\d+) /.exec(key)?.[1] ?? Number.NaN);
}

export function isDict(value: PdfValue | undefined): value is PdfDict {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
