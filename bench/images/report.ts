/**
 * The benchmark's report: per format, level and peer the medians over the images (bytes ratio at equal
 * score, CPU ratio against one peer encode), one markdown text printed by the run and written into
 * README.md between the `bench:images` markers, so the README's numbers are those of the last run.
 */
import { cpus } from 'node:os';
import { writeReadmeSection } from '../shared/readme-section.ts';
import type { Row } from './cases.ts';

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Nearest-rank 95th percentile (with under 20 images: the largest). */
export const p95 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.ceil(0.95 * s.length) - 1]!;
};

export interface Summary {
  format: string;
  level: string;
  peer: string;
  images: number;
  pressoScore: number;
  /** median(Presso bytes / peer bytes) over the images where the peer reached Presso's score. */
  ratio: number;
  pressoCpuMs: number;
  peerCpuMs: number;
  /** Presso CPU / one peer encode's CPU (rows whose CPU reference is this peer). */
  cpuRatio: number;
  cpuRatioP95: number;
  /** Search overhead: median(Presso CPU / (one output encode + one whole-output score)). */
  overhead: number;
  /**
   * The floor against the same peer encode: median and p95 of (one output encode + one whole-output score)
   * / the peer's CPU, and its two parts (encode / peer, score with both decodes / peer), each a median of
   * per-image ratios. A CPU-ratio target below `floorRatio` cannot be met by any search.
   */
  floorRatio: number;
  floorRatioP95: number;
  floorEncodeRatio: number;
  floorScoreRatio: number;
  unmatched: number;
}

/** The CPU ratio of a row: Presso's request against one encode of its CPU peer at the matched setting. */
export const cpuRatioOf = (r: Row): number | undefined => {
  const peer = r.cpuPeer ? r.peers[r.cpuPeer] : undefined;
  return peer && peer.cpuMs > 0 ? r.presso.cpuMs / peer.cpuMs : undefined;
};

/** A row's CPU against its CPU peer's one encode, for any of Presso's CPU measures (request, floor…). */
const againstPeer = (rs: Row[], peer: string, cpu: (r: Row) => number | undefined): number[] =>
  rs
    .filter((r) => r.cpuPeer === peer)
    .flatMap((r) => {
      const mine = cpu(r);
      const theirs = r.peers[peer]?.cpuMs;
      return mine !== undefined && theirs !== undefined && theirs > 0 ? [mine / theirs] : [];
    });

export function summarise(rows: Row[]): Summary[] {
  const summary: Summary[] = [];
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    const k = `${r.format}|${r.level}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  for (const [k, rs] of groups) {
    const [format, level] = k.split('|') as [string, string];
    for (const peer of new Set(rs.flatMap((r) => Object.keys(r.peers)))) {
      const matched = rs.filter((r) => r.peers[peer] !== undefined);
      const cpu = rs.filter((r) => r.cpuPeer === peer).flatMap((r) => cpuRatioOf(r) ?? []);
      const floor = againstPeer(rs, peer, (r) => r.presso.floorCpuMs);
      summary.push({
        format,
        level,
        peer,
        images: rs.length,
        pressoScore: median(rs.map((r) => r.presso.score)),
        ratio: median(matched.map((r) => r.presso.bytes / r.peers[peer]!.bytes)),
        pressoCpuMs: median(rs.map((r) => r.presso.cpuMs)),
        peerCpuMs: median(matched.map((r) => r.peers[peer]!.cpuMs)),
        cpuRatio: median(cpu),
        cpuRatioP95: p95(cpu),
        overhead: median(
          rs.flatMap((r) => (r.presso.floorCpuMs ? [r.presso.cpuMs / r.presso.floorCpuMs] : [])),
        ),
        floorRatio: median(floor),
        floorRatioP95: p95(floor),
        floorEncodeRatio: median(againstPeer(rs, peer, (r) => r.presso.floorEncodeCpuMs)),
        floorScoreRatio: median(againstPeer(rs, peer, (r) => r.presso.floorScoreCpuMs)),
        unmatched: rs.length - matched.length,
      });
    }
  }
  return summary;
}

export interface Target {
  target: string;
  value: number;
  unit?: string;
  met: boolean;
}

export interface Report {
  quick: boolean;
  minutes: number;
  images: number;
  summary: Summary[];
  concurrency: number;
  rounds: number;
  inProcess: number;
  viaApi: number;
  peakRssMb: number;
  idleRssMb: number;
  statuses: number[];
  targets: Target[];
  notes: string[];
  /** Issue 25's rows against their floors (issue25.ts), rendered by the caller. */
  issue25: string[];
}

const fmt = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '–');

export function renderReport(r: Report): string {
  const lines = [
    `Run: \`npm run bench${r.quick ? ' -- --quick' : ''}\`, ${new Date().toISOString().slice(0, 10)}, ` +
      `${cpus().length} vCPU, ${r.images} images, ${fmt(r.minutes, 0)} min. Bytes ratio = median(Presso ` +
      'bytes / peer bytes), each peer at its smallest output scoring at least Presso’s SSIMULACRA 2. CPU ' +
      'ratio = Presso’s request (user+sys, with the tools it ran in the sandbox) / one peer encode at that ' +
      'matched setting (median, p95), both from cgroups. Search overhead = Presso’s request / (one encode ' +
      'of the output’s format + one whole-output score), measured in the same worker; a PNG’s encode is one ' +
      'palette PNG at the level’s settings + oxipng. Floor ÷ peer = that floor / the same peer encode ' +
      '(median, p95), split into its encode ÷ peer and its score (decoding both sides + SSIMULACRA 2) ÷ peer: ' +
      'no search can bring the CPU ratio below it.',
    '',
    '| format | level | peer | images | Presso score | bytes ratio | Presso CPU s | peer CPU ms | CPU ratio | CPU p95 | search overhead | floor ÷ peer (p95) | encode ÷ peer | score ÷ peer | peer never matched |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...r.summary.map(
      (s) =>
        `| ${s.format} | ${s.level} | ${s.peer} | ${s.images} | ${fmt(s.pressoScore, 1)} | ${fmt(s.ratio)} | ` +
        `${fmt(s.pressoCpuMs / 1000)} | ${fmt(s.peerCpuMs, 0)} | ${fmt(s.cpuRatio, 1)} | ` +
        `${fmt(s.cpuRatioP95, 1)} | ${fmt(s.overhead, 1)} | ${fmt(s.floorRatio, 1)} (${fmt(s.floorRatioP95, 1)}) | ` +
        `${fmt(s.floorEncodeRatio, 1)} | ${fmt(s.floorScoreRatio, 1)} | ${s.unmatched} |`,
    ),
    '',
    `Throughput (${r.concurrency} concurrent = the machine's cores, ${r.rounds} photos, \`high\`): the ` +
      `processor in one process ${fmt(r.inProcess)} img/s, HTTPS API ${fmt(r.viaApi)} img/s. Peak RSS (VmHWM) ` +
      `of \`presso serve\` with 8 concurrent 24 MP uploads: ${fmt(r.peakRssMb, 0)} MB (idle ` +
      `${fmt(r.idleRssMb, 0)} MB; statuses ${r.statuses.join(',')}).`,
    ...(r.issue25.length ? ['', ...r.issue25] : []),
    '',
    '| target | measured | met |',
    '|---|---|---|',
    ...r.targets.map((t) => `| ${t.target} | ${fmt(t.value)}${t.unit ?? ''} | ${t.met ? 'yes' : '**no**'} |`),
    ...(r.notes.length ? ['', ...r.notes.map((n) => `- ${n}`)] : []),
  ];
  return lines.join('\n');
}

/** The README's image table (between the `bench:images` markers) becomes this run's. */
export function writeReadmeReport(readmePath: string, markdown: string): boolean {
  return writeReadmeSection(readmePath, 'images', markdown);
}
