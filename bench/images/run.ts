/**
 * Image benchmark: Presso's bytes and SSIMULACRA 2 score per format and level against the standard tools
 * at equal or better score (each peer's setting is searched to match Presso's score), `format: auto` on
 * photos, API throughput vs the processor in-process, and peak RSS with 8 concurrent 24 MP uploads.
 * Run by `npm run bench` (scripts/bench.sh); `--quick` uses a smaller sample. Writes bench/results/*.json.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import sharp from 'sharp';
import { detectFile } from '../../src/media/detect.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { scoreOutput } from '../../src/processors/image/quality/score.ts';
import { QUALITY_TARGETS } from '../../src/processors/image/quality/targets.ts';
import { createAccountCli, spawnPresso, startTestPresso, testClient } from '../../test/support/presso.ts';
import { renderReport, type Summary, type Target, writeReadmeReport } from './report.ts';

const root = resolve(import.meta.dirname, '../..');
const quick = process.argv.includes('--quick');
const C = resolve(root, process.env.PRESSO_BENCH_CORPUS ?? '.corpus/bench');
const work = await mkdtemp(join(tmpdir(), 'presso-bench-'));
const processor = createImageProcessor({});
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
const files = (dir: string, re: RegExp) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => re.test(f))
        .map((f) => join(dir, f))
        .filter((f) => statSync(f).isFile())
        .sort()
    : [];

// ---- corpus sample -------------------------------------------------------------------------------
const forensics = join(C, 'usr/share/forensics-samples/original-files');
const skimage = join(C, 'usr/lib/python3/dist-packages/skimage/data');
const photos = [
  ...files(join(C, 'usr/share/backgrounds/mate/nature'), /\.jpg$/i).slice(0, quick ? 2 : 4),
  join(forensics, 'pic1/IMG_20200827_231612.jpg'),
  ...(quick ? [] : [join(forensics, 'pic2/IMG_20200608_111614.jpg'), join(forensics, 'pic1/IMG_1054.JPG')]),
];
const pngs = [
  join(skimage, 'astronaut.png'),
  join(skimage, 'coffee.png'),
  ...(quick ? [] : [join(skimage, 'chelsea.png'), join(forensics, 'pic1/debian.png')]),
  ...files(join(C, 'usr/share/backgrounds/mate/desktop'), /\.png$/i).slice(0, quick ? 1 : 3),
];
const webps = files(join(C, 'usr/share/backgrounds/gnome'), /\.webp$/i).slice(0, quick ? 1 : 3);
const svgs = [
  ...files(join(C, 'usr/share/desktop-base/emerald-theme/wallpaper/contents/images'), /\.svg$/i),
  ...files(join(C, 'usr/share/doc/imagemagick-6-common/html/images'), /\.svg$/i),
].slice(0, quick ? 4 : 12);
const gifs = files(join(C, 'usr/share/doc/imagemagick-6-common/html/images'), /\.gif$/i).slice(
  0,
  quick ? 3 : 7,
);

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

interface Row {
  format: string;
  level: string;
  file: string;
  presso: { bytes: number; score: number; ms: number };
  peers: Record<string, { bytes: number; score: number; q: number; ms: number } | undefined>;
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
for (const file of svgs) {
  const out = await presso(file, {}).catch(() => undefined);
  if (!out) continue;
  const o = tmp('svg');
  const t = performance.now();
  const { optimize } = await import('svgo');
  await writeFile(o, optimize(await readFile(file, 'utf8')).data);
  rows.push({
    format: 'svg',
    level: 'high',
    file: basename(file),
    presso: { bytes: out.bytes, score: Number.NaN, ms: out.ms },
    peers: {
      'svgo (defaults)': { bytes: statSync(o).size, score: Number.NaN, q: 0, ms: performance.now() - t },
    },
  });
}
for (const file of gifs) {
  const out = await presso(file, {}).catch(() => undefined);
  if (!out) continue;
  const o = tmp('gif');
  const t = performance.now();
  sh('gifsicle', ['-O3', file, '-o', o]);
  rows.push({
    format: 'gif',
    level: 'high',
    file: basename(file),
    presso: { bytes: out.bytes, score: Number.NaN, ms: out.ms },
    peers: {
      'gifsicle -O3': { bytes: statSync(o).size, score: Number.NaN, q: 0, ms: performance.now() - t },
    },
  });
}

// ---- summary table ---------------------------------------------------------------------------------------
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

// ---- service overhead: API vs in-process, same files, same concurrency -------------------------------------
const CONCURRENCY = 2;
const apiFiles = photos.slice(0, quick ? 2 : 4);
async function pool<T>(items: T[], fn: (t: T) => Promise<void>) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let it = queue.shift(); it !== undefined; it = queue.shift()) await fn(it);
    }),
  );
}
const rounds = [...apiFiles, ...apiFiles];
let t0 = performance.now();
await pool(rounds, async (f) => {
  await presso(f, { compression: 'high' });
});
const inProcess = rounds.length / ((performance.now() - t0) / 1000);
const server = await startTestPresso();
t0 = performance.now();
await pool(rounds, async (f) => {
  const response = await server.upload(f, { image: { compression: 'high' } });
  const body = (await response.json()) as { url?: string };
  if (response.status !== 200 || !body.url)
    throw new Error(`upload ${response.status} ${JSON.stringify(body)}`);
  await (await server.get(body.url)).arrayBuffer();
});
const viaApi = rounds.length / ((performance.now() - t0) / 1000);
await server.stop();

// ---- peak RSS: 8 concurrent 24 MP uploads to a child server ---------------------------------------------------
const big = join(work, 'big-24mp.jpg');
await sharp(photos[0]!).resize(6000, 4000, { fit: 'fill' }).jpeg({ quality: 90 }).toFile(big);
const dataDir = await mkdtemp(join(work, 'data-'));
const account = await createAccountCli(dataDir, 'bench');
const child = await spawnPresso(dataDir);
const client = testClient(child.url, account.key, child.cert);
const statusOf = () => readFileSync(`/proc/${child.child.pid}/status`, 'utf8');
const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(statusOf())?.[1] ?? 0);
const idleRss = kb('VmRSS');
const statuses = await Promise.all(
  Array.from({ length: 8 }, async () => {
    const r = await client.upload(big, { image: { compression: 'high' } });
    await r.arrayBuffer();
    return r.status;
  }),
);
const peakRssMb = kb('VmHWM') / 1024;
await client.close();
await child.kill('SIGTERM');

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
  idleRssMb: idleRss / 1024,
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
    { quick, qualityTargets: QUALITY_TARGETS, summary, rows, inProcess, viaApi, peakRssMb, idleRss, targets },
    null,
    2,
  ),
);
console.log(`\nJSON: ${out}`);
await rm(work, { recursive: true, force: true });
