/**
 * Issue 8's targets, checked on the rows of one run: CPU per image against one peer encode, `auto` against
 * its most expensive candidate, bytes at equal score, every output at its level, levels monotonic, palette
 * PNGs shrunk, API throughput and memory. Each is printed met or missed; notes name the images that miss.
 */
import { QUALITY_TARGETS } from '../../src/processors/image/quality/targets.ts';
import type { Level, Row } from './cases.ts';
import { CPU_TARGETS, OVERHEAD_TARGET } from './issue25.ts';
import { median, p95, type Summary, type Target } from './report.ts';

/** Bytes ratio ceilings at equal score (JPEG against the better of its two peers). */
const BYTES_TARGETS: Record<string, number> = { jpeg: 0.85, webp: 0.95, avif: 0.9, png: 0.9 };
const AUTO_CPU_TARGET = 1.5;

export interface Measured {
  rows: Row[];
  summary: Summary[];
  levels: readonly Level[];
  inProcess: number;
  viaApi: number;
  peakRssMb: number;
}

/** Pairs of levels (lower level first) whose bytes must not grow: ultra ≤ high ≤ medium. */
function monotonicViolations(rows: Row[]): string[] {
  const out: string[] = [];
  const byImage = new Map<string, Map<string, number>>();
  for (const r of rows.filter((x) => x.format === 'jpeg' || x.format === 'png')) {
    const k = `${r.format} ${r.file}`;
    byImage.set(k, (byImage.get(k) ?? new Map()).set(r.level, r.presso.bytes));
  }
  for (const [image, bytes] of byImage) {
    for (const [smaller, larger] of [
      ['ultra', 'high'],
      ['high', 'medium'],
    ] as const) {
      const a = bytes.get(smaller);
      const b = bytes.get(larger);
      if (a !== undefined && b !== undefined && a > b)
        out.push(`${image}: ${smaller} ${a} B > ${larger} ${b} B`);
    }
  }
  return out;
}

export function checkTargets(m: Measured): { targets: Target[]; notes: string[] } {
  const targets: Target[] = [];
  const notes: string[] = [];
  const pick = (format: string, level: string) =>
    m.summary.filter((s) => s.format === format && s.level === level);
  for (const [format, limit] of Object.entries(CPU_TARGETS)) {
    const s = pick(format, 'high').find((x) => Number.isFinite(x.cpuRatio));
    if (!s) continue;
    targets.push(
      {
        target: `${format} CPU ≤ ${limit}× one peer encode (high, median)`,
        value: s.cpuRatio,
        unit: '×',
        met: s.cpuRatio <= limit,
      },
      {
        target: `${format} CPU p95 ≤ ${2 * limit}× (high)`,
        value: s.cpuRatioP95,
        unit: '×',
        met: s.cpuRatioP95 <= 2 * limit,
      },
    );
  }
  // Issue 25: the search's cost over the floor of a verified output, every format at `high` (PNG's floor:
  // one palette + oxipng and one whole-output score, search-floor.ts).
  for (const format of ['jpeg', 'webp', 'avif', 'png']) {
    const s = pick(format, 'high').find((x) => Number.isFinite(x.overhead));
    if (s)
      targets.push({
        target: `${format} search overhead ≤ ${OVERHEAD_TARGET}× (one encode + one whole-output score, high)`,
        value: s.overhead,
        unit: '×',
        met: s.overhead <= OVERHEAD_TARGET,
      });
  }
  const autoRatios = m.rows
    .filter((r) => r.format === 'auto' && r.candidateCpuMs)
    .map((r) => r.presso.cpuMs / Math.max(...Object.values(r.candidateCpuMs!)));
  if (autoRatios.length) {
    const v = median(autoRatios);
    targets.push(
      {
        target: `auto CPU ≤ ${AUTO_CPU_TARGET}× its most expensive candidate alone (median)`,
        value: v,
        unit: '×',
        met: v <= AUTO_CPU_TARGET,
      },
      {
        target: 'auto CPU, p95 of the same ratio (reported)',
        value: p95(autoRatios),
        unit: '×',
        met: p95(autoRatios) <= 2 * AUTO_CPU_TARGET,
      },
    );
  }
  for (const level of m.levels) {
    for (const [format, limit] of Object.entries(BYTES_TARGETS)) {
      const s = pick(format, level);
      if (!s.length) continue;
      const v = Math.max(...s.map((x) => x.ratio)); // JPEG: against the better peer
      targets.push({
        target: `${format} bytes at equal score ≤ ${limit} × peer (${level})`,
        value: v,
        met: v <= limit,
      });
    }
  }
  const autoPhotos = m.rows.filter((r) => r.format === 'auto' && /\.jpe?g$/i.test(r.file));
  if (autoPhotos.length) {
    const v = median(autoPhotos.map((r) => r.presso.bytes / r.inputBytes));
    targets.push({ target: 'auto ≤ 0.5 × input JPEG bytes (photos, high)', value: v, met: v <= 0.5 });
  }
  const graded = m.rows.filter((r) => r.level in QUALITY_TARGETS && Number.isFinite(r.presso.score));
  const below = graded.filter((r) => r.presso.score < QUALITY_TARGETS[r.level as Level]);
  targets.push({
    target: `outputs below their level's target (of ${graded.length})`,
    value: below.length,
    unit: '',
    met: below.length === 0,
  });
  for (const r of below)
    notes.push(`below target: ${r.format} ${r.level} ${r.file} scored ${r.presso.score.toFixed(2)}`);
  // The guarantee as an outside audit checks it (issue 25): whole image, Debian's decoders on both sides.
  const audited = graded.filter((r) => r.presso.auditScore !== undefined);
  const auditBelow = audited.filter((r) => r.presso.auditScore! < QUALITY_TARGETS[r.level as Level]);
  if (audited.length) {
    const margin = Math.min(...audited.map((r) => r.presso.auditScore! - QUALITY_TARGETS[r.level as Level]));
    targets.push(
      {
        target: `outputs below their level on Debian's decoders, whole image (of ${audited.length})`,
        value: auditBelow.length,
        unit: '',
        met: auditBelow.length === 0,
      },
      {
        target: 'smallest margin above the level (Debian decoders, whole image)',
        value: margin,
        met: margin >= 0,
      },
    );
  }
  for (const r of auditBelow)
    notes.push(
      `below target on Debian's decoders: ${r.format} ${r.level} ${r.file} scored ${r.presso.auditScore!.toFixed(2)}`,
    );
  const violations = monotonicViolations(m.rows);
  targets.push({
    target: 'levels monotonic (ultra ≤ high ≤ medium bytes), violations',
    value: violations.length,
    unit: '',
    met: violations.length === 0,
  });
  for (const v of violations) notes.push(`not monotonic: ${v}`);
  const unshrunk = m.rows.filter(
    (r) => r.returnsInput && r.pngquantAtTarget && r.pngquantAtTarget.bytes < r.inputBytes,
  );
  targets.push({
    target: 'PNGs returned unchanged that pngquant shrinks at the level',
    value: unshrunk.length,
    unit: '',
    met: unshrunk.length === 0,
  });
  for (const r of unshrunk)
    notes.push(
      `not shrunk: ${r.file} (${r.level}) kept ${r.inputBytes} B; pngquant + optipng ${r.pngquantAtTarget!.bytes} B at ${r.pngquantAtTarget!.score.toFixed(1)}`,
    );
  const api = m.viaApi / m.inProcess;
  targets.push(
    { target: 'HTTPS API throughput ≥ 0.9 × in process', value: api, met: api >= 0.9 },
    {
      target: 'peak RSS < 512 MB, 8 × 24 MP uploads',
      value: m.peakRssMb,
      unit: ' MB',
      met: m.peakRssMb < 512,
    },
  );
  return { targets, notes };
}
