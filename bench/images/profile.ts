/**
 * Where the image processor's CPU goes: one `high` request per output format (jpeg, webp, avif, png,
 * auto) on a 1280×960 camera photo and on a 0.3 MP copy of it, each run through `createImageProcessor` in
 * its own Node process under `--cpu-prof`. Per request it prints its CPU seconds (user+sys from a cgroup of
 * the request's own: libvips' and the encoders' threads, and any tool it runs in the sandbox), the main thread's JavaScript
 * time by source file (the metric, pixel shuffling) from the V8 profile, and the rest (native decode and
 * encode, oxipng, the threads of libvips) as total minus JavaScript. Not a test: it measures.
 *
 * Usage: node bench/images/profile.ts [--formats jpeg,webp] [--png-inputs] [--keep-profiles DIR]
 * (--png-inputs: astronaut, coffee and the Debian logo instead of the photo)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import sharp from 'sharp';
import { detectFile } from '../../src/media/detect.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { corpus } from '../../test/support/corpus.ts';
import { CpuMeter } from '../shared/cpu-meter.ts';

const FORMATS = ['jpeg', 'webp', 'avif', 'png', 'auto'] as const;
/** The SSIMULACRA 2 implementation's files: the scoring share of the main thread. */
const METRIC_FILES = ['ssimulacra2.ts', 'recursive-gaussian.ts'];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Child: one request, its CPU seconds and output size as one JSON line on stdout. */
async function runOne(path: string, format: string): Promise<void> {
  const processor = createImageProcessor({ timeBudgetMs: 30 * 60_000, timeFloorMs: 30 * 60_000 });
  const detected = await detectFile(path);
  if (detected === undefined) throw new Error(`not an image: ${path}`);
  const workDir = mkdtempSync(join(tmpdir(), 'presso-profile-'));
  const meter = CpuMeter.open('profile');
  const { value: result, seconds } = await meter.measure(() =>
    processor.process({
      input: { ...detected, path, name: basename(path), size: statSync(path).size },
      params: { format, compression: 'high' },
      workDir,
      signal: new AbortController().signal,
      wantMetadata: false,
    }),
  );
  await meter.close();
  const size = statSync(result.path).size;
  rmSync(workDir, { recursive: true, force: true });
  console.log(JSON.stringify({ cpu: seconds, size, format: result.format }));
}

/** Self time of the main thread by source file (short name), in seconds; idle and GC kept apart. */
function jsTimeByFile(profile: CpuProfile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (node === undefined) return;
    const { url, functionName } = node.callFrame;
    const key = url === '' ? functionName || '(native)' : basename(url);
    out.set(key, (out.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1e6);
  });
  return out;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const formatsArg = args[args.indexOf('--formats') + 1];
  const formats = args.includes('--formats') && formatsArg ? formatsArg.split(',') : [...FORMATS];
  const keep = args.includes('--keep-profiles') ? args[args.indexOf('--keep-profiles') + 1] : undefined;
  const scratch = mkdtempSync(join(tmpdir(), 'presso-profile-inputs-'));
  // The 0.3 MP image: the same photo downscaled (640×480), saved as a high-quality JPEG.
  const small = join(scratch, 'canon-640.jpg');
  await sharp(corpus.canonPhoto).resize(640).jpeg({ quality: 95 }).toFile(small);
  // --png-inputs: the PNG inputs `auto` competes PNG, WebP and AVIF on (docs/benchmarks.md, Speed levers).
  const images = args.includes('--png-inputs')
    ? [
        { name: 'astronaut 512×512', path: corpus.astronaut },
        { name: 'coffee 400×600', path: join(dirname(corpus.astronaut), 'coffee.png') },
        { name: 'Debian logo 800×600 RGBA', path: corpus.alphaPng },
      ]
    : [
        { name: 'canon 1280×960', path: corpus.canonPhoto },
        { name: 'canon 640×480', path: small },
      ];
  const totals: Record<string, number> = {};
  for (const image of images) {
    for (const format of formats) {
      const dir = keep ? resolve(keep) : join(scratch, `prof-${format}`);
      mkdirSync(dir, { recursive: true });
      const line = execFileSync(
        process.execPath,
        ['--cpu-prof', `--cpu-prof-dir=${dir}`, import.meta.filename, '--child', image.path, format],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const { cpu, size, format: chosen } = JSON.parse(line.trim().split('\n').pop()!);
      const file = readdirSync(dir)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => join(dir, f))
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!;
      const js = jsTimeByFile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
      // The profile samples wall time: on a loaded machine a busy main thread also waits for a core, so
      // only the shares are read from it; the CPU seconds come from the request's cgroup.
      const busy = [...js.entries()].filter(([k]) => k !== '(idle)');
      const busyTotal = busy.reduce((s, [, v]) => s + v, 0);
      const metric = busy.filter(([k]) => METRIC_FILES.includes(k)).reduce((s, [, v]) => s + v, 0);
      const top = busy
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([k, v]) => `${k} ${Math.round((100 * v) / busyTotal)} %`)
        .join(', ');
      totals[format] = (totals[format] ?? 0) + cpu;
      console.log(
        `${image.name} ${format.padEnd(4)} → ${chosen} ${size} B: CPU ${cpu.toFixed(2)} s; main thread busy ` +
          `${busyTotal.toFixed(2)} s wall, metric ${Math.round((100 * metric) / busyTotal)} % [${top}]`,
      );
    }
  }
  console.log(
    `total CPU s per format: ${Object.entries(totals)
      .map(([f, s]) => `${f} ${s.toFixed(2)}`)
      .join(', ')}`,
  );
  rmSync(scratch, { recursive: true, force: true });
}

if (process.argv[2] === '--child') await runOne(process.argv[3]!, process.argv[4]!);
else await main();
