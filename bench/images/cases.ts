/**
 * The benchmark's cases, one function per input kind: Presso's request (in a worker process, CPU measured),
 * its whole-output SSIMULACRA 2 against the decoded input, and each peer searched to its smallest output
 * scoring at least as well (CPU of that one encode measured). One Row per image, output format and level.
 */
import { rm, stat, writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import { QUALITY_TARGETS } from '../../src/processors/image/quality/targets.ts';
import { scoreOutput } from '../../src/processors/shared/metric/score.ts';
import { auditScore } from '../../test/support/debian-decoders.ts';
import type { PressoRun, PressoWorkers } from './cpu.ts';
import {
  avifenc,
  cjpeg,
  cwebp,
  FIXED_PEERS,
  fixedPeerRun,
  jpegoptim,
  matchPeer,
  optipngOnly,
  type PeerResult,
  pngquantOptipng,
  type Trial,
} from './peers.ts';

export type Level = keyof typeof QUALITY_TARGETS;

export interface Row {
  /** Output format asked for (`auto`: Presso chose, see presso.outputFormat). */
  format: string;
  level: string;
  file: string;
  kind?: string;
  inputBytes: number;
  pixels: number;
  presso: {
    bytes: number;
    score: number;
    /** The guarantee's score: whole image, output and source decoded by Debian's decoders (issue 25). */
    auditScore?: number;
    cpuMs: number;
    /** The floor: one encode of the output's format and one whole-output score (search-floor.ts). */
    floorCpuMs?: number;
    /** Its parts: the encode (PNG: palette + oxipng) and the score (decoding both sides + SSIMULACRA 2). */
    floorEncodeCpuMs?: number;
    floorScoreCpuMs?: number;
    wallMs: number;
    outputFormat: string;
  };
  peers: Record<string, PeerResult | undefined>;
  /** The peer whose one encode at the matched setting is this row's CPU reference. */
  cpuPeer?: string;
  /**
   * Issue 25's own reference encode, at the fixed setting its targets name (`cjpeg -quality 85`, `cwebp -q
   * 80`): one run's CPU, on the same input as the matched peer. JPEG and WebP rows only.
   */
  fixedPeer?: { name: string; cpuMs: number };
  /** PNG rows: Presso's output is not smaller than the input, so the service returns the input. */
  returnsInput?: boolean;
  /** PNG rows where Presso returns the input: pngquant + optipng's smallest output meeting the level's target. */
  pngquantAtTarget?: PeerResult;
  /** `auto` rows: CPU of each candidate format requested alone on the same image and level. */
  candidateCpuMs?: Record<string, number>;
}

export interface BenchContext {
  workers: PressoWorkers;
  work: string;
  tmp: (ext: string) => string;
  /** A file's name in rows: its path in the corpus, short (two previews are both `screenshot.png`). */
  label: (file: string) => string;
}

async function presso(ctx: BenchContext, file: string, params: Record<string, unknown>): Promise<PressoRun> {
  return ctx.workers.run(file, params, ctx.work);
}

/** The decoded input as an sRGB PNG: the scoring reference and the peers' input for photos. */
export async function referencePng(ctx: BenchContext, input: string): Promise<string> {
  const ref = ctx.tmp('png');
  await sharp(input).autoOrient().toColourspace('srgb').png({ compressionLevel: 1 }).toFile(ref);
  return ref;
}

async function inputFacts(file: string) {
  const meta = await sharp(file).metadata();
  return { inputBytes: (await stat(file)).size, pixels: (meta.width ?? 0) * (meta.height ?? 0) };
}

const pressoFields = (run: PressoRun, score: number, audit: number) => ({
  bytes: run.bytes,
  score,
  auditScore: audit,
  cpuMs: run.cpuMs,
  floorCpuMs: run.floorCpuMs,
  floorEncodeCpuMs: run.floorEncodeCpuMs,
  floorScoreCpuMs: run.floorScoreCpuMs,
  wallMs: run.wallMs,
  outputFormat: run.format,
});

const t0 = performance.now();
const log = (row: Row) =>
  console.error(
    `[${((performance.now() - t0) / 60_000).toFixed(1)} min] ${row.format} ${row.level} ${row.file}: ${row.presso.bytes} B, score ${row.presso.score.toFixed(1)} ` +
      `(Debian decoders, whole: ${row.presso.auditScore?.toFixed(2)}), ` +
      `${(row.presso.cpuMs / 1000).toFixed(2)} CPU-s`,
  );

/** JPEG inputs recompressed as JPEG at each level, against cjpeg and jpegoptim. */
export async function jpegCases(ctx: BenchContext, file: string, levels: readonly Level[]): Promise<Row[]> {
  const ref = await referencePng(ctx, file);
  const raw = await sharp(ref).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const ppm = ctx.tmp('ppm');
  await writeFile(
    ppm,
    Buffer.concat([Buffer.from(`P6\n${raw.info.width} ${raw.info.height}\n255\n`), raw.data]),
  );
  const facts = await inputFacts(file);
  const peers = [cjpeg(ppm), jpegoptim(file)];
  const fixedPeer = await fixedPeerRun(FIXED_PEERS.jpeg, ppm, ctx.tmp('jpg'));
  const memos = peers.map(() => new Map<number, Trial>());
  const rows: Row[] = [];
  for (const level of levels) {
    const run = await presso(ctx, file, { compression: level });
    const score = await scoreOutput(ref, run.path);
    const audit = await auditScore(file, run.path, run.format);
    await rm(run.path, { force: true });
    const matched: Row['peers'] = {};
    for (const [i, peer] of peers.entries())
      matched[peer.name] = await matchPeer(ref, score, peer, ctx.tmp, 'jpg', memos[i]);
    const row: Row = {
      format: 'jpeg',
      level,
      file: ctx.label(file),
      ...facts,
      presso: pressoFields(run, score, audit.score),
      peers: matched,
      cpuPeer: peers[0]!.name,
      fixedPeer,
    };
    log(row);
    rows.push(row);
  }
  await rm(ppm, { force: true });
  return rows;
}

/** PNG inputs recompressed as PNG at each level, against pngquant + optipng -o2 (or optipng alone). */
export async function pngCases(
  ctx: BenchContext,
  file: string,
  kind: string,
  levels: readonly Level[],
): Promise<Row[]> {
  const facts = await inputFacts(file);
  const peer = pngquantOptipng(file);
  const memo = new Map<number, Trial>();
  const lossless = await optipngOnly(file, ctx.tmp('png'));
  const rows: Row[] = [];
  for (const level of levels) {
    const run = await presso(ctx, file, { compression: level });
    // The file itself is the reference: decodeRgb colour-manages its gAMA/cHRM/iCCP like the reference tool.
    const score = await scoreOutput(file, run.path);
    const audit = await auditScore(file, run.path, run.format);
    await rm(run.path, { force: true });
    const quant = await matchPeer(file, score, peer, ctx.tmp, 'png', memo);
    const best = quant && quant.bytes < lossless.bytes ? quant : lossless;
    const returnsInput = run.bytes >= facts.inputBytes;
    const row: Row = {
      format: 'png',
      level,
      file: ctx.label(file),
      kind,
      ...facts,
      presso: pressoFields(run, score, audit.score),
      peers: { [peer.name]: best },
      cpuPeer: peer.name,
      returnsInput,
      // Only asked when Presso gives the input back: could a palette have met the level and shrunk it?
      pngquantAtTarget: returnsInput
        ? await matchPeer(file, QUALITY_TARGETS[level], peer, ctx.tmp, 'png', memo)
        : undefined,
    };
    log(row);
    rows.push(row);
  }
  return rows;
}

/** One image to WebP and AVIF at `high` (each against its peer), then `auto` against its candidates. */
export async function lossyCases(
  ctx: BenchContext,
  file: string,
  ownFormatCpuMs: number | undefined,
): Promise<Row[]> {
  const facts = await inputFacts(file);
  const isPng = file.toLowerCase().endsWith('.png');
  const ref = isPng ? file : await referencePng(ctx, file);
  // Peers read an sRGB PNG; for PNG inputs the file itself (with its alpha).
  const peerInput = isPng ? await referencePng(ctx, file) : ref;
  const rows: Row[] = [];
  for (const [format, peer] of [
    ['webp', cwebp(peerInput)],
    ['avif', avifenc(peerInput)],
  ] as const) {
    const run = await presso(ctx, file, { compression: 'high', format });
    const score = await scoreOutput(ref, run.path);
    const audit = await auditScore(file, run.path, run.format);
    await rm(run.path, { force: true });
    const row: Row = {
      format,
      level: 'high',
      file: ctx.label(file),
      ...facts,
      presso: pressoFields(run, score, audit.score),
      peers: { [peer.name]: await matchPeer(ref, score, peer, ctx.tmp, format) },
      cpuPeer: peer.name,
      ...(format === 'webp'
        ? { fixedPeer: await fixedPeerRun(FIXED_PEERS.webp, peerInput, ctx.tmp('webp')) }
        : {}),
    };
    log(row);
    rows.push(row);
  }
  const auto = await presso(ctx, file, { compression: 'high', format: 'auto' });
  const autoScore = await scoreOutput(ref, auto.path);
  const autoAudit = await auditScore(file, auto.path, auto.format);
  await rm(auto.path, { force: true });
  const candidateCpuMs: Record<string, number> = Object.fromEntries(
    rows.map((r) => [r.format, r.presso.cpuMs]),
  );
  // The input's own format is the third candidate (JPEG or PNG, measured by jpegCases / pngCases).
  const own = isPng ? 'png' : file.toLowerCase().endsWith('.webp') ? undefined : 'jpeg';
  if (own && ownFormatCpuMs !== undefined) candidateCpuMs[own] = ownFormatCpuMs;
  const row: Row = {
    format: 'auto',
    level: 'high',
    file: ctx.label(file),
    ...facts,
    presso: pressoFields(auto, autoScore, autoAudit.score),
    peers: { 'input file': { bytes: facts.inputBytes, score: Number.NaN, q: 0, cpuMs: 0, trials: 0 } },
    candidateCpuMs,
  };
  log(row);
  rows.push(row);
  if (isPng) await rm(peerInput, { force: true });
  return rows;
}
