/**
 * The benchmark's report: one markdown text, printed by the run and written into README.md between the
 * `bench:images` markers, so the README's numbers are always those of the last run of the command.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

export interface Summary {
  format: string;
  level: string;
  peer: string;
  images: number;
  pressoScore: number;
  ratio: number;
  pressoMs: number;
  peerMs: number;
  unmatched: number;
}

export interface Target {
  target: string;
  value: number;
  unit?: string;
  met: boolean;
}

export interface Report {
  quick: boolean;
  summary: Summary[];
  concurrency: number;
  rounds: number;
  inProcess: number;
  viaApi: number;
  peakRssMb: number;
  idleRssMb: number;
  statuses: number[];
  targets: Target[];
}

const fmt = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '–');

export function renderReport(r: Report): string {
  const lines = [
    `Run: \`npm run bench${r.quick ? ' -- --quick' : ''}\`, ${new Date().toISOString().slice(0, 10)}, ` +
      `${cpus().length} vCPU. Ratio = median(Presso bytes / peer bytes), each peer at its smallest output ` +
      'scoring at least Presso’s SSIMULACRA 2.',
    '',
    '| format | level | peer | images | Presso score (median) | bytes ratio | Presso ms | peer ms | peer never matched |',
    '|---|---|---|---|---|---|---|---|---|',
    ...r.summary.map(
      (s) =>
        `| ${s.format} | ${s.level} | ${s.peer} | ${s.images} | ${fmt(s.pressoScore, 1)} | ${fmt(s.ratio)} | ` +
        `${fmt(s.pressoMs, 0)} | ${fmt(s.peerMs, 0)} | ${s.unmatched} |`,
    ),
    '',
    `Throughput (${r.concurrency} concurrent, ${r.rounds} photos, \`high\`): sharp in process ` +
      `${fmt(r.inProcess)} img/s, HTTPS API ${fmt(r.viaApi)} img/s. Peak RSS (VmHWM) of \`presso serve\` with 8 ` +
      `concurrent 24 MP uploads: ${fmt(r.peakRssMb, 0)} MB (idle ${fmt(r.idleRssMb, 0)} MB; statuses ` +
      `${r.statuses.join(',')}).`,
    '',
    '| target | measured | met |',
    '|---|---|---|',
    ...r.targets.map((t) => `| ${t.target} | ${fmt(t.value)}${t.unit ?? ''} | ${t.met ? 'yes' : '**no**'} |`),
  ];
  return lines.join('\n');
}

const START = '<!-- bench:images:start (written by `npm run bench`) -->';
const END = '<!-- bench:images:end -->';

/** Replaces the README's benchmark block; false when the markers are missing. */
export function writeReadmeReport(readmePath: string, markdown: string): boolean {
  const readme = readFileSync(readmePath, 'utf8');
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) return false;
  writeFileSync(readmePath, `${readme.slice(0, start + START.length)}\n${markdown}\n${readme.slice(end)}`);
  return true;
}
