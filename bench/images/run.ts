/**
 * Image benchmark (issue 8): per image, output format and level, Presso's bytes, whole-output SSIMULACRA 2
 * and CPU against the standard tools searched to an equal or better score (cases.ts, peers.ts); `auto`
 * against its candidates; API throughput with every core busy against the processor in process; peak RSS
 * with 8 concurrent 24 MP uploads. Checks the targets (targets.ts), prints the table, writes it into the
 * README and every row to bench/results/images-<time>.json. Run by `npm run bench` (scripts/bench.sh);
 * `--quick` uses a smaller sample at `high` only.
 */
import { statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import sharp from 'sharp';
import { detectFile } from '../../src/media/detect.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { QUALITY_TARGETS } from '../../src/processors/image/quality/targets.ts';
import { type BenchContext, jpegCases, type Level, lossyCases, pngCases, type Row } from './cases.ts';
import { closeImagesMeter, imagesMeter, PressoWorkers, pool, runChecked } from './cpu.ts';
import { issue25Rows, renderIssue25 } from './issue25.ts';
import { AVIF_PEER_SPEED } from './peers.ts';
import { renderReport, summarise, writeReadmeReport } from './report.ts';
import { benchSample } from './sample.ts';
import { measurePeakRss, measureThroughput } from './service.ts';
import { checkTargets } from './targets.ts';

const started = performance.now();
const root = resolve(import.meta.dirname, '../..');
const quick = process.argv.includes('--quick');
const C = resolve(root, process.env.PRESSO_BENCH_CORPUS ?? '.corpus/bench');
const cores = availableParallelism();
// Before the workers start: their cgroups are made under the bench's.
const meter = imagesMeter();
const work = await mkdtemp(join(tmpdir(), 'presso-bench-'));
let n = 0;
const ctx: BenchContext = {
  workers: new PressoWorkers(cores),
  work,
  tmp: (ext) => join(work, `t${n++}.${ext}`),
  label: (file) => relative(C, file).replace(/^usr\/(share\/|lib\/python3\/dist-packages\/)?/, ''),
};
const { photos, pngs, lossy, svgs, gifs } = benchSample(C, quick);
const levels: readonly Level[] = quick ? ['high'] : ['medium', 'high', 'ultra'];
const missing = [...photos, ...pngs.map((p) => p.file), ...lossy, ...svgs, ...gifs].filter((f) => {
  try {
    return !statSync(f).isFile();
  } catch {
    return true;
  }
});
if (missing.length) throw new Error(`corpus files missing (run scripts/corpus.sh): ${missing.join(', ')}`);

// Workers start warm: module load, libvips start-up and the metric's first call are no request's cost.
const warm = join(work, 'warm.jpg');
await sharp({ create: { width: 96, height: 96, channels: 3, background: '#808040' } })
  .jpeg()
  .toFile(warm);
await ctx.workers.warmUp(warm, work);

// Cases run `cores` at a time: each Presso request has a worker process to itself (its CPU is its own)
// and peers' CPU is read per child process, so running side by side spoils neither measure.
const jpegRows = (await pool(photos, cores, (f) => jpegCases(ctx, f, levels))).flat();
const pngRows = (await pool(pngs, cores, (p) => pngCases(ctx, p.file, p.kind, levels))).flat();
const ownCpu = (f: string) =>
  [...jpegRows, ...pngRows].find((r) => r.file === ctx.label(f) && r.level === 'high')?.presso.cpuMs;
const lossyRows = (await pool(lossy, cores, (f) => lossyCases(ctx, f, ownCpu(f)))).flat();

// ---- SVG and GIF: lossless in appearance, bytes and CPU only ----------------------------------------------
const losslessRows: Row[] = [];
const { optimize } = await import('svgo');
for (const [format, files] of [
  ['svg', svgs],
  ['gif', gifs],
] as const) {
  for (const file of files) {
    const run = await ctx.workers.run(file, {}, work).catch((error: unknown) => {
      console.error(`${format} ${basename(file)}: Presso refused it, left out of the table: ${error}`);
      return undefined;
    });
    if (!run) continue;
    await rm(run.path, { force: true });
    const out = ctx.tmp(format);
    let peer: string;
    let cpuMs: number;
    if (format === 'svg') {
      // svgo is a library: its CPU is this process's, measured with nothing else running here.
      peer = 'svgo (defaults)';
      const { seconds } = await meter.measure(async () =>
        writeFile(out, optimize(await readFile(file, 'utf8')).data),
      );
      cpuMs = seconds * 1000;
    } else {
      peer = 'gifsicle -O3';
      cpuMs = await runChecked('gifsicle', ['-O3', file, '-o', out]);
    }
    losslessRows.push({
      format,
      level: 'high',
      file: ctx.label(file),
      inputBytes: statSync(file).size,
      pixels: 0,
      presso: {
        bytes: run.bytes,
        score: Number.NaN,
        cpuMs: run.cpuMs,
        wallMs: run.wallMs,
        outputFormat: run.format,
      },
      peers: { [peer]: { bytes: statSync(out).size, score: Number.NaN, q: 0, cpuMs, trials: 1 } },
      cpuPeer: peer,
    });
  }
}
ctx.workers.close();

const rows = [...jpegRows, ...pngRows, ...lossyRows, ...losslessRows];
const summary = summarise(rows);

// ---- service overhead with every core busy, and memory (service.ts) -----------------------------------------
const processor = createImageProcessor({ timeBudgetMs: 30 * 60_000, timeFloorMs: 30 * 60_000 });
const inProcessRequest = async (input: string) => {
  const detected = await detectFile(input);
  if (!detected) throw new Error(`not detected: ${input}`);
  const workDir = await mkdtemp(join(work, 'tp-'));
  await processor.process({
    input: { ...detected, path: input, name: basename(input), size: statSync(input).size },
    params: { compression: 'high' },
    workDir,
    signal: new AbortController().signal,
    wantMetadata: false,
  });
  await rm(workDir, { recursive: true, force: true });
};
const concurrency = Math.max(2, cores);
const sample = photos.slice(0, quick ? 2 : 4);
const rounds = [...sample, ...sample];
const { inProcess, viaApi } = await measureThroughput(rounds, concurrency, inProcessRequest);
const { idleRssMb, peakRssMb, statuses } = await measurePeakRss(photos[0]!, work);

// ---- report --------------------------------------------------------------------------------------------------
const { targets, notes } = checkTargets({ rows, summary, levels, inProcess, viaApi, peakRssMb });
const issue25 = issue25Rows(summary, rows);
const images = new Set(rows.map((r) => r.file)).size;
const minutes = (performance.now() - started) / 60_000;
const report = renderReport({
  quick,
  minutes,
  images,
  summary,
  concurrency,
  rounds: rounds.length,
  inProcess,
  viaApi,
  peakRssMb,
  idleRssMb,
  statuses,
  targets,
  notes,
  issue25: renderIssue25(issue25),
});
console.log(`\n${report}`);
// Only a full run speaks for the README: a quick one would replace the whole corpus's table by a sample's.
if (!quick && writeReadmeReport(join(root, 'README.md'), report))
  console.log('\nREADME.md benchmark section updated');
const results = join(root, 'bench/results');
await mkdir(results, { recursive: true });
const out = join(
  results,
  `images-${new Date().toISOString().replace(/[:.]/g, '-')}${quick ? '-quick' : ''}.json`,
);
const json = {
  quick,
  minutes,
  cores,
  images,
  qualityTargets: QUALITY_TARGETS,
  method: {
    pressoCpu:
      'cgroup v2 usage of a worker process running only that request (all threads) and of every tool it ran in the sandbox',
    peerCpu: 'cgroup v2 usage of the peer command and its children, one encode at the matched setting',
    avifPeerSpeed: AVIF_PEER_SPEED,
    floorCpu:
      'one encode of the output at the level’s start quality (PNG: one palette PNG + oxipng) and one ' +
      'whole-output SSIMULACRA 2 with both decodes, each part from a cgroup of the worker after the request',
  },
  summary,
  issue25,
  targets,
  notes,
  inProcess,
  viaApi,
  concurrency,
  peakRssMb,
  idleRssMb,
  rows,
};
await writeFile(out, JSON.stringify(json, null, 2));
console.log(`\nJSON: ${out}`);
await closeImagesMeter();
await rm(work, { recursive: true, force: true });
