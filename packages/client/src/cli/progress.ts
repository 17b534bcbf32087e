/**
 * How a batch reports: on a terminal, a bar per file in flight and an overall bar (files, bytes, rate, ETA)
 * redrawn in place; otherwise one plain line per finished file; with --json one JSON object per line.
 */
import type { Input } from './files.ts';

export type Phase = 'hashing' | 'uploading' | 'processing' | 'downloading';

export interface FileOutcome {
  bytesOut: number;
  output?: string;
  url: string;
}

export interface Summary {
  files: number;
  done: number;
  skipped: number;
  failed: { file: string; message: string }[];
  bytesIn: number;
  bytesOut: number;
  interrupted: boolean;
}

export interface Reporter {
  start(total: { files: number; bytes: number }): void;
  progress(input: Input, phase: Phase, fraction: number): void;
  done(input: Input, outcome: FileOutcome): void;
  skipped(input: Input, outcome: FileOutcome): void;
  failed(input: Input, message: string): void;
  finish(summary: Summary): void;
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

const saved = (before: number, after: number) =>
  before === 0 ? '0%' : `${(((before - after) / before) * 100).toFixed(1)}%`;

export function summaryTable(summary: Summary): string {
  const rows: [string, string][] = [
    ['files', String(summary.files)],
    ['compressed', String(summary.done)],
    ['skipped (resumed)', String(summary.skipped)],
    ['failed', String(summary.failed.length)],
    ['bytes before', formatBytes(summary.bytesIn)],
    ['bytes after', formatBytes(summary.bytesOut)],
    [
      'saved',
      `${formatBytes(summary.bytesIn - summary.bytesOut)} (${saved(summary.bytesIn, summary.bytesOut)})`,
    ],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  const lines = rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`);
  if (summary.interrupted) lines.push('interrupted: run again with --resume to finish');
  for (const failure of summary.failed) lines.push(`FAILED ${failure.file}: ${failure.message}`);
  return `${lines.join('\n')}\n`;
}

function outcomeLine(input: Input, outcome: FileOutcome, verb: string): string {
  return `${verb} ${input.relative} ${formatBytes(input.size)} -> ${formatBytes(outcome.bytesOut)} (-${saved(input.size, outcome.bytesOut)})`;
}

export class JsonReporter implements Reporter {
  readonly out: NodeJS.WritableStream;
  constructor(out: NodeJS.WritableStream) {
    this.out = out;
  }
  #emit(event: Record<string, unknown>) {
    this.out.write(`${JSON.stringify(event)}\n`);
  }
  start(total: { files: number; bytes: number }) {
    this.#emit({ event: 'start', ...total });
  }
  progress() {}
  done(input: Input, outcome: FileOutcome) {
    this.#emit({ event: 'done', file: input.relative, bytesIn: input.size, ...outcome });
  }
  skipped(input: Input, outcome: FileOutcome) {
    this.#emit({ event: 'skipped', file: input.relative, bytesIn: input.size, ...outcome });
  }
  failed(input: Input, message: string) {
    this.#emit({ event: 'failed', file: input.relative, message });
  }
  finish(summary: Summary) {
    this.#emit({ event: 'summary', ...summary });
  }
}

export class PlainReporter implements Reporter {
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
  constructor(out: NodeJS.WritableStream, err: NodeJS.WritableStream) {
    this.out = out;
    this.err = err;
  }
  start(total: { files: number; bytes: number }) {
    this.err.write(`${total.files} files, ${formatBytes(total.bytes)}\n`);
  }
  progress() {}
  done(input: Input, outcome: FileOutcome) {
    this.out.write(`${outcomeLine(input, outcome, 'ok')}\n`);
  }
  skipped(input: Input, outcome: FileOutcome) {
    this.out.write(`${outcomeLine(input, outcome, 'skipped')}\n`);
  }
  failed(input: Input, message: string) {
    this.out.write(`failed ${input.relative}: ${message}\n`);
  }
  finish(summary: Summary) {
    this.out.write(`\n${summaryTable(summary)}`);
  }
}

const bar = (fraction: number, width = 20) => {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
};

/** Bars redrawn in place on a terminal, at most every 100 ms. */
export class TerminalReporter implements Reporter {
  readonly #inFlight = new Map<string, { phase: Phase; fraction: number }>();
  #drawn = 0;
  #total = { files: 0, bytes: 0 };
  #finished = { files: 0, bytes: 0 };
  #started = Date.now();
  #timer: NodeJS.Timeout | undefined;

  readonly out: NodeJS.WriteStream;
  constructor(out: NodeJS.WriteStream) {
    this.out = out;
  }

  start(total: { files: number; bytes: number }) {
    this.#total = total;
    this.#started = Date.now();
    this.#timer = setInterval(() => this.#draw(), 100).unref();
  }
  progress(input: Input, phase: Phase, fraction: number) {
    this.#inFlight.set(input.relative, { phase, fraction });
  }
  done(input: Input, outcome: FileOutcome) {
    this.#settle(input, outcomeLine(input, outcome, 'ok'));
  }
  skipped(input: Input, outcome: FileOutcome) {
    this.#settle(input, outcomeLine(input, outcome, 'skipped'));
  }
  failed(input: Input, message: string) {
    this.#settle(input, `failed ${input.relative}: ${message}`);
  }
  finish(summary: Summary) {
    clearInterval(this.#timer);
    this.#clear();
    this.out.write(`\n${summaryTable(summary)}`);
  }

  #settle(input: Input, line: string) {
    this.#inFlight.delete(input.relative);
    this.#finished.files++;
    this.#finished.bytes += input.size;
    this.#clear();
    this.out.write(`${line}\n`);
    this.#draw();
  }

  #clear() {
    if (this.#drawn > 0) this.out.write(`\x1b[${this.#drawn}A\x1b[0J`);
    this.#drawn = 0;
  }

  #draw() {
    this.#clear();
    const columns = this.out.columns || 80;
    const lines: string[] = [];
    for (const [name, { phase, fraction }] of this.#inFlight)
      lines.push(
        `${bar(fraction, 12)} ${String(Math.round(fraction * 100)).padStart(3)}% ${phase.padEnd(11)} ${name}`,
      );
    const elapsed = (Date.now() - this.#started) / 1000;
    const rate = elapsed > 0 ? this.#finished.bytes / elapsed : 0;
    const left = this.#total.bytes - this.#finished.bytes;
    const eta = rate > 0 ? `ETA ${Math.ceil(left / rate)}s` : 'ETA -';
    const fraction = this.#total.bytes > 0 ? this.#finished.bytes / this.#total.bytes : 0;
    lines.push(
      `${bar(fraction)} ${this.#finished.files}/${this.#total.files} files  ${formatBytes(this.#finished.bytes)}/${formatBytes(this.#total.bytes)}  ${formatBytes(rate)}/s  ${eta}`,
    );
    this.out.write(`${lines.map((line) => line.slice(0, columns - 1)).join('\n')}\n`);
    this.#drawn = lines.length;
  }
}
