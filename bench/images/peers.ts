/**
 * The peers: the standard command-line encoders, each with one quality knob the benchmark searches for
 * the smallest output scoring at least Presso's SSIMULACRA 2. Every run's CPU is measured (cpu.ts), so the
 * CPU of the matched setting is one peer encode at the quality that reaches Presso's score.
 */
import { copyFile, rm, stat } from 'node:fs/promises';
import { scoreOutput } from '../../src/processors/shared/metric/score.ts';
import { runChecked, runMeasured } from './cpu.ts';

export interface PeerResult {
  bytes: number;
  score: number;
  /** The peer's setting at its smallest output scoring ≥ Presso's. */
  q: number;
  /** CPU of one peer encode at that setting (user+sys ms). */
  cpuMs: number;
  /** Encodes the search ran. */
  trials: number;
}

/** An encoder with a quality knob: `encode(q, out)` writes `out` and returns its CPU ms. */
export interface Peer {
  name: string;
  lo: number;
  hi: number;
  /** avifenc's quantizer: lower is better. */
  lowerIsBetter?: boolean;
  encode(q: number, out: string): Promise<number | undefined>;
}

/** One peer encode at one setting; `undefined` when the peer refused (pngquant below its quality floor). */
export type Trial = { bytes: number; score: number; cpuMs: number } | undefined;

/**
 * Smallest peer output whose score ≥ `score`, by bisection of the peer's knob. `memo` keeps one image's
 * trials per setting, so the three levels (and the "can pngquant shrink it" check) share their encodes.
 */
export async function matchPeer(
  reference: string,
  score: number,
  peer: Peer,
  tmp: (ext: string) => string,
  ext: string,
  memo: Map<number, Trial> = new Map(),
): Promise<PeerResult | undefined> {
  let best: PeerResult | undefined;
  let a = peer.lo;
  let b = peer.hi;
  let trials = 0;
  while (a <= b) {
    const q = Math.floor((a + b) / 2);
    if (!memo.has(q)) {
      const out = tmp(ext);
      const cpuMs = await peer.encode(q, out);
      memo.set(
        q,
        cpuMs === undefined
          ? undefined
          : { bytes: (await stat(out)).size, score: await scoreOutput(reference, out), cpuMs },
      );
      // Only the numbers are kept: 40+ images × levels × trials of 12 MP outputs would fill the disk.
      await rm(out, { force: true });
    }
    const trial = memo.get(q);
    trials++;
    const good = trial !== undefined && trial.score >= score;
    if (trial && good && (!best || trial.bytes < best.bytes)) best = { ...trial, q, trials: 0 };
    if (good !== Boolean(peer.lowerIsBetter)) b = q - 1;
    else a = q + 1;
  }
  return best && { ...best, trials };
}

/**
 * Issue 25's reference encodes: the fixed settings its CPU targets are stated against (one `cjpeg -quality
 * 85` of libjpeg-turbo, baseline Huffman; one `cwebp -q 80`), each given its input and output path.
 */
export const FIXED_PEERS = {
  jpeg: {
    name: 'cjpeg -quality 85',
    cmd: 'cjpeg',
    args: (input: string, out: string) => ['-quality', '85', '-outfile', out, input],
  },
  webp: {
    name: 'cwebp -q 80',
    cmd: 'cwebp',
    args: (input: string, out: string) => ['-quiet', '-q', '80', input, '-o', out],
  },
} as const;

/** One run of a fixed reference encode: its name and CPU (user+sys ms). */
export async function fixedPeerRun(
  peer: (typeof FIXED_PEERS)[keyof typeof FIXED_PEERS],
  input: string,
  out: string,
): Promise<{ name: string; cpuMs: number }> {
  const cpuMs = await runChecked(peer.cmd, peer.args(input, out));
  await rm(out, { force: true });
  return { name: peer.name, cpuMs };
}

/** cjpeg of libjpeg-turbo (Presso's JPEG is sharp's mozjpeg), optimised Huffman, progressive. */
export const cjpeg = (ppm: string): Peer => ({
  name: 'cjpeg -optimize -progressive',
  lo: 30,
  hi: 100,
  encode: (q, out) =>
    runChecked('cjpeg', ['-optimize', '-progressive', '-quality', String(q), '-outfile', out, ppm]),
});

/** jpegoptim recompressing the input JPEG itself (the sample's photos need no EXIF rotation). */
export const jpegoptim = (input: string): Peer => ({
  name: 'jpegoptim -m',
  lo: 30,
  hi: 100,
  encode: async (q, out) => {
    await copyFile(input, out);
    return runChecked('jpegoptim', ['-q', '--strip-all', `-m${q}`, out]);
  },
});

/** cwebp at its default method 4, as Presso's effort 4. */
export const cwebp = (png: string): Peer => ({
  name: 'cwebp -q',
  lo: 30,
  hi: 100,
  encode: (q, out) => runChecked('cwebp', ['-quiet', '-q', String(q), png, '-o', out]),
});

/**
 * avifenc at Presso's speed: sharp's AVIF effort e is libvips' heifsave effort, which sets libheif's aom
 * "speed" (cpu-used) to 9 − e; Presso uses effort 2, so aom cpu-used 7 = `avifenc -s 7`. Both 4:4:4 8-bit
 * (sharp's AVIF default, avifenc's default for PNG input).
 */
export const AVIF_PEER_SPEED = 7;
export const avifenc = (png: string): Peer => ({
  name: `avifenc -s ${AVIF_PEER_SPEED} --min/--max`,
  lo: 0,
  hi: 63,
  lowerIsBetter: true,
  encode: (q, out) =>
    runChecked('avifenc', [
      '-j',
      '1',
      '-s',
      String(AVIF_PEER_SPEED),
      '--min',
      String(q),
      '--max',
      String(q),
      png,
      out,
    ]),
});

/**
 * pngquant (`--quality 0-Q`, Q searched, speed 1) then `optipng -o2`; CPU is the two runs together. When
 * no palette reaches the score pngquant exits 99 and the trial fails (the caller also measures optipng
 * alone, the lossless fallback).
 */
export const pngquantOptipng = (input: string): Peer => ({
  name: 'pngquant + optipng -o2',
  lo: 10,
  hi: 100,
  encode: async (q, out) => {
    const quant = await runMeasured('pngquant', [
      '--force',
      '--speed',
      '1',
      '--quality',
      `0-${q}`,
      '--output',
      out,
      input,
    ]);
    if (quant.code !== 0) return undefined;
    return quant.cpuMs + (await runChecked('optipng', ['-quiet', '-o2', out]));
  },
});

/** `optipng -o2` alone on the input: the lossless peer (score 100). */
export async function optipngOnly(input: string, out: string): Promise<PeerResult> {
  await copyFile(input, out);
  const cpuMs = await runChecked('optipng', ['-quiet', '-o2', out]);
  return { bytes: (await stat(out)).size, score: 100, q: 0, cpuMs, trials: 1 };
}
