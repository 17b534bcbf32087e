/**
 * A PDF's objects as qpdf's JSON (version 2) describes them, and edits written back through qpdf's
 * `--update-from-json`: only the objects named in an update change, every other object is copied byte
 * for byte, so text, fonts and vector art render exactly as before. Objects nothing refers to any more
 * (private data whose last reference an update removed) are not written by qpdf at all.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { type PdfToolRun, pdfTool } from '../shared/pdf-tools.ts';

/**
 * The JSON of a PDF's objects is about a tenth of the file. It is parsed on the event loop, which serves
 * every request meanwhile: 49 MB took 0.85 s and 320 MB of heap (2026-11-25, 2 busy cores), so 256 MB would
 * stall the service for seconds. Past this size the in-place edits are skipped (the engines that fall back
 * on a 422, Ghostscript and qpdf, still run).
 */
const MAX_JSON_BYTES = 32 * 1024 * 1024;

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
  await pdfTool('qpdf', args, run, { stdoutFile: file });
  if ((await stat(file)).size > MAX_JSON_BYTES) {
    throw new UnprocessableInputError('The PDF has too many objects to edit in place.');
  }
  const text = await readFile(file, 'utf8');
  // A reviver costs a few times the parse, so it runs only on the rare files that need it.
  const parsed = (UNFAITHFUL_NUMBER.test(text) ? JSON.parse(text, keepNumberText) : JSON.parse(text)) as {
    qpdf?: [PdfValue, Record<string, PdfObject>];
  };
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

/**
 * Numbers JavaScript would write back differently from the PDF: below 1e-6 or from 1e21 up (exponent form,
 * which is not PDF syntax: qpdf copies it and the file no longer parses), integers past 2^53 (another
 * value), and reals past the double range (null). A value starting with seven zeros or with 16 digits
 * is one of them or close to one.
 */
const UNFAITHFUL_NUMBER = /[[:,]\s*-?(?:0\.0{6}|\d{16})/;

interface RawJson {
  readonly rawJSON: string;
}
const json = JSON as typeof JSON & {
  rawJSON(text: string): RawJson;
  isRawJSON(value: unknown): value is RawJson;
};

/** Keeps such a number as its own text (JSON.rawJSON), written back unchanged by JSON.stringify. */
function keepNumberText(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  const faithful =
    Number.isFinite(value) &&
    !/e/i.test(String(value)) &&
    (!Number.isInteger(value) || Number.isSafeInteger(value));
  return faithful ? value : json.rawJSON(context.source);
}

/** qpdf's `--show-object` argument for `obj:12 0 R`: `12,0`. */
export function objectId(key: string): string {
  const match = /^obj:(\d+) (\d+) R$/.exec(key);
  return match ? `${match[1]},${match[2]}` : '';
}

/** `12` of `obj:12 0 R`. */
export function objectNumber(key: string): number {
  return Number(/^obj:(\d+) /.exec(key)?.[1] ?? Number.NaN);
}

export function isDict(value: PdfValue | undefined): value is PdfDict {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !json.isRawJSON(value);
}
