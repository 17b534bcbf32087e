/**
 * The benchmark's report: one markdown text, printed by the run and written into README.md between the
 * `bench:images` markers, so the README's numbers are always those of the last run of the command.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

export interface Row {
  format: string;
  level: string;
  file: string;
  presso: { bytes: number; score: number; ms: number };
  peers: Record<string, { bytes: number; score: number; q: number; ms: number } | undefined>;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Per format, level and peer: medians over the images (ratio over the images where the peer matched). */
export function summarise(rows: Row[]): Summary[] {
  const summary: Summary[] = [];
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    const k = `${r.format}|${r.level}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  for (const [k, rs] of groups) {
    const [format, level] = k.split('|') as [string, string];
    const peerNames = new Set(rs.flatMap((r) => Object.keys(r.peers)));
    for (const peer of peerNames) {
      const matched = rs.filter((r) => r.peers[peer] !== undefined);
      summary.push({
        format,
        level,
        peer,
        images: rs.length,
        pressoScore: median(rs.map((r) => r.presso.score)),
        ratio: median(matched.map((r) => r.presso.bytes / r.peers[peer]!.bytes)),
        pressoMs: median(rs.map((r) => r.presso.ms)),
        peerMs: median(matched.map((r) => r.peers[peer]!.ms)),
        unmatched: rs.length - matched.length,
      });
    }
  }
  return summary;
}

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
