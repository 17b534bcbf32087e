/**
 * Image benchmark: Presso's bytes and SSIMULACRA 2 score per format and level against the standard tools
 * at equal or better score (each peer's setting is searched to match Presso's score), `format: auto` on
 * photos, API throughput vs the processor in-process, and peak RSS with 8 concurrent 24 MP uploads.
 * Run by `npm run bench` (scripts/bench.sh); `--quick` uses a smaller sample. Writes bench/results/*.json.
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import sharp from 'sharp';
import { detectFile } from '../../src/media/detect.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { scoreOutput } from '../../src/processors/image/quality/score.ts';
import { QUALITY_TARGETS } from '../../src/processors/image/quality/targets.ts';
import { type Row, renderReport, summarise, type Target, writeReadmeReport } from './report.ts';
import { benchSample } from './sample.ts';
import { measurePeakRss, measureThroughput } from './service.ts';

const root = resolve(import.meta.dirname, '../..');
const quick = process.argv.includes('--quick');
const C = resolve(root, process.env.PRESSO_BENCH_CORPUS ?? '.corpus/bench');
const work = await mkdtemp(join(tmpdir(), 'presso-bench-'));
const processor = createImageProcessor({});
const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
const { photos, pngs, webps, svgs, gifs } = benchSample(C, quick);

// ---- helpers ---------------------------------------------------------------------------------------
/** `params` is the `image` namespace of a request (what the processor receives). */
async function presso(input: string, params: Record<string, unknown>) {
  const detected = await detectFile(input);
  if (!detected) throw new Error(`not detected: ${input}`);
  const dir = await mkdtemp(join(work, 'job-'));
  const started = performance.now();
  const result = await processor.process({
    input: { ...detected, path: input, name: basename(input), size: statSync(input).size },
    params,
    workDir: dir,
    signal: new AbortController().signal,
    wantMetadata: false,
  });
  const ms = performance.now() - started;
  return { path: result.path, format: result.format, bytes: (await stat(result.path)).size, ms };
}

/** Smallest peer output whose score ≥ `score`, by bisection of the peer's quality knob. */
async function matchPeer(
  reference: string,
  score: number,
  lo: number,
  hi: number,
  encode: (q: number) => Promise<string>,
  higherIsBetter = true,
): Promise<{ bytes: number; score: number; q: number; ms: number } | undefined> {
  let best: { bytes: number; score: number; q: number; ms: number } | undefined;
  let a = lo;
  let b = hi;
  while (a <= b) {
    const q = Math.floor((a + b) / 2);
    const t = performance.now();
    const out = await encode(q);
    const ms = performance.now() - t;
    const s = await scoreOutput(reference, out);
    const bytes = (await stat(out)).size;
    const good = s >= score;
    if (good && (!best || bytes < best.bytes)) best = { bytes, score: s, q, ms };
    // Better quality = higher q for most tools (lower for avifenc's quantizer).
    if (good === higherIsBetter) b = q - 1;
    else a = q + 1;
  }
  return best;
}

const rows: Row[] = [];
let n = 0;
const tmp = (ext: string) => join(work, `t${n++}.${ext}`);

async function referencePng(input: string): Promise<string> {
  const ref = tmp('png');
  await sharp(input).autoOrient().toColourspace('srgb').png({ compressionLevel: 1 }).toFile(ref);
  return ref;
}

const levels = quick ? (['high'] as const) : (['medium', 'high', 'ultra'] as const);

// ---- JPEG ------------------------------------------------------------------------------------------
for (const file of photos) {
  const ref = await referencePng(file);
  const ppm = tmp('ppm');
  const raw = await sharp(ref).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  await writeFile(
    ppm,
    Buffer.concat([Buffer.from(`P6\n${raw.info.width} ${raw.info.height}\n255\n`), raw.data]),
  );
  for (const level of levels) {
    const out = await presso(file, { compression: level });
    const score = await scoreOutput(ref, out.path);
    const peers: Row['peers'] = {};
    peers['cjpeg -optimize -progressive'] = await matchPeer(ref, score, 30, 100, async (q) => {
      const o = tmp('jpg');
      sh('sh', ['-c', `cjpeg -optimize -progressive -quality ${q} ${ppm} > ${o}`]);
      return o;
    });
    peers['jpegoptim -m'] = await matchPeer(ref, score, 30, 100, async (q) => {
      const d = await mkdtemp(join(work, 'jo-'));
      await copyFile(file, join(d, 'x.jpg'));
      // jpegoptim works on the input JPEG itself (the sample has no EXIF rotation).
      sh('jpegoptim', ['-q', '--strip-all', `-m${q}`, join(d, 'x.jpg')]);
      return join(d, 'x.jpg');
    });
    rows.push({ format: 'jpeg', level, file: basename(file), presso: { ...out, score }, peers });
    console.error(`jpeg ${level} ${basename(file)} presso ${out.bytes} (${score.toFixed(1)})`);
  }
  // format auto on photos vs the input JPEG's bytes
  const auto = await presso(file, { format: 'auto' });
  rows.push({
    format: 'auto',
    level: 'high',
    file: basename(file),
    presso: { bytes: auto.bytes, score: await scoreOutput(ref, auto.path), ms: auto.ms },
    peers: { 'input JPEG': { bytes: statSync(file).size, score: Number.NaN, q: 0, ms: 0 } },
  });
}

// ---- PNG -------------------------------------------------------------------------------------------
for (const file of pngs) {
  const ref = file;
  for (const level of levels) {
    const out = await presso(file, { compression: level });
    const score = await scoreOutput(sharp(ref), out.path);
    const peer = await matchPeer(ref, score, 10, 100, async (q) => {
      const o = tmp('png');
      try {
        sh('pngquant', ['--force', '--speed', '1', '--quality', `0-${q}`, '--output', o, file]);
      } catch {
        await copyFile(file, o);
      }
      sh('optipng', ['-quiet', '-o2', o]);
      return o;
    });
    const lossless = tmp('png');
    await copyFile(file, lossless);
    const t = performance.now();
    sh('optipng', ['-quiet', '-o2', lossless]);
    const optipngOnly = { bytes: statSync(lossless).size, score: 100, q: 0, ms: performance.now() - t };
    const best = peer && peer.bytes < optipngOnly.bytes ? peer : optipngOnly;
    rows.push({
      format: 'png',
      level,
      file: basename(file),
      presso: { ...out, score },
      peers: { 'pngquant + optipng -o2': best },
    });
    console.error(`png ${level} ${basename(file)} presso ${out.bytes} (${score.toFixed(1)})`);
  }
}

// ---- WebP and AVIF (photos converted; WebP inputs recompressed) ----------------------------------------
for (const file of [...photos.slice(0, quick ? 1 : 3), ...webps]) {
  const ref = await referencePng(file);
  for (const format of ['webp', 'avif'] as const) {
    const out = await presso(file, { compression: 'high', format });
    const score = await scoreOutput(ref, out.path);
    const peer =
      format === 'webp'
        ? await matchPeer(ref, score, 30, 100, async (q) => {
            const o = tmp('webp');
            sh('cwebp', ['-quiet', '-q', String(q), ref, '-o', o]);
            return o;
          })
        : await matchPeer(
            ref,
            score,
            0,
            63,
            async (q) => {
              const o = tmp('avif');
              sh('avifenc', ['-j', '2', '-s', '6', '--min', String(q), '--max', String(q), ref, o]);
              return o;
            },
            false,
          );
    rows.push({
      format,
      level: 'high',
      file: basename(file),
      presso: { ...out, score },
      peers: { [format === 'webp' ? 'cwebp -q' : 'avifenc -s 6 --min/--max']: peer },
    });
    console.error(`${format} ${basename(file)} presso ${out.bytes} (${score.toFixed(1)})`);
  }
}

// ---- SVG and GIF (bytes; both lossless-in-appearance) --------------------------------------------------
const lossless: { format: string; files: string[]; peer: string; run: (file: string) => Promise<string> }[] =
  [
    {
      format: 'svg',
      files: svgs,
      peer: 'svgo (defaults)',
      run: async (file) => {
        const o = tmp('svg');
        const { optimize } = await import('svgo');
        await writeFile(o, optimize(await readFile(file, 'utf8')).data);
        return o;
      },
    },
    {
      format: 'gif',
      files: gifs,
      peer: 'gifsicle -O3',
      run: async (file) => {
        const o = tmp('gif');
        sh('gifsicle', ['-O3', file, '-o', o]);
        return o;
      },
    },
  ];
for (const { format, files, peer, run } of lossless) {
  for (const file of files) {
    const out = await presso(file, {}).catch((error: unknown) => {
      console.error(`${format} ${basename(file)}: Presso refused it, left out of the table: ${error}`);
      return undefined;
    });
    if (!out) continue;
    const t = performance.now();
    const o = await run(file);
    rows.push({
      format,
      level: 'high',
      file: basename(file),
      presso: { bytes: out.bytes, score: Number.NaN, ms: out.ms },
      peers: { [peer]: { bytes: statSync(o).size, score: Number.NaN, q: 0, ms: performance.now() - t } },
    });
  }
}

const summary = summarise(rows);

// ---- service overhead and memory (service.ts) ----------------------------------------------------------------
const CONCURRENCY = 2;
const rounds = [...photos.slice(0, quick ? 2 : 4), ...photos.slice(0, quick ? 2 : 4)];
const { inProcess, viaApi } = await measureThroughput(rounds, CONCURRENCY, (f) =>
  presso(f, { compression: 'high' }),
);
const { idleRssMb, peakRssMb, statuses } = await measurePeakRss(photos[0]!, work);

// ---- report --------------------------------------------------------------------------------------------------
const pick = (f: string, l: string, peer?: string) =>
  summary.filter((s) => s.format === f && s.level === l && (!peer || s.peer === peer));
const targets: Target[] = [];
for (const level of levels) {
  const jpegBest = Math.max(...pick('jpeg', level).map((s) => s.ratio));
  const pngRatio = pick('png', level)[0]?.ratio ?? Number.NaN;
  const autoRatio = pick('auto', level)[0]?.ratio ?? Number.NaN;
  targets.push(
    {
      target: `JPEG bytes at equal quality ≤ 0.85 × best peer (${level})`,
      value: jpegBest,
      met: jpegBest <= 0.85,
    },
    { target: `PNG bytes at equal quality ≤ 0.90 × peer (${level})`, value: pngRatio, met: pngRatio <= 0.9 },
  );
  // `format: auto` runs at the default level only.
  if (level === 'high') {
    targets.push({
      target: 'format auto ≤ 0.5 × input JPEG bytes, photos (high)',
      value: autoRatio,
      met: autoRatio <= 0.5,
    });
  }
}
targets.push(
  { target: 'API throughput ≥ 0.9 × in-process', value: viaApi / inProcess, met: viaApi / inProcess >= 0.9 },
  { target: 'peak RSS < 512 MB, 8 × 24 MP uploads', value: peakRssMb, unit: ' MB', met: peakRssMb < 512 },
);
const report = renderReport({
  quick,
  summary,
  concurrency: CONCURRENCY,
  rounds: rounds.length,
  inProcess,
  viaApi,
  peakRssMb,
  idleRssMb,
  statuses,
  targets,
});
console.log(`\n${report}`);
if (writeReadmeReport(join(root, 'README.md'), report)) console.log('\nREADME.md benchmark section updated');
const results = join(root, 'bench/results');
await mkdir(results, { recursive: true });
const out = join(results, `images-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
await writeFile(
  out,
  JSON.stringify(
    {
      quick,
      qualityTargets: QUALITY_TARGETS,
      summary,
      rows,
      inProcess,
      viaApi,
      peakRssMb,
      idleRssMb,
      targets,
    },
    null,
    2,
  ),
);
console.log(`\nJSON: ${out}`);
await rm(work, { recursive: true, force: true });
