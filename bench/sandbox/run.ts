/**
 * The sandbox's cost (issue 21), one command: `npm run bench:sandbox`. The same jobs of every kind that
 * runs external tools (image codecs and the SVG child, PDF, office document, video, audio, archive),
 * through the processors, with `PRESSO_SANDBOX`'s two settings in the same run, alternated job by job so
 * machine load falls on both alike. Wall time, and CPU time of this process and every process it starts
 * during the job (a cgroup per job, bench/shared/cpu-meter.ts: bubblewrap and the tools inside it included).
 * Prints a Markdown table with the on/off ratios, writes it into docs/benchmarks.md between the
 * bench:sandbox markers, and writes bench/results/sandbox.json. `--quick`: one round instead of three.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import sharp from 'sharp';
import { detectFile } from '../../src/media/detect.ts';
import { createArchiveProcessor } from '../../src/processors/archive/archive-processor.ts';
import { createAudioProcessor } from '../../src/processors/audio/audio-processor.ts';
import { createDocumentProcessor } from '../../src/processors/document/document-processor.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { createPdfProcessor } from '../../src/processors/pdf/pdf-processor.ts';
import type { Processor } from '../../src/processors/processor.ts';
import { probeSandbox, type SandboxMode, setSandboxMode } from '../../src/processors/shared/sandbox.ts';
import { createVideoProcessor } from '../../src/processors/video/video-processor.ts';
import { writeArchives } from '../../test/processors/archive/fixtures.ts';
import { makeOfficeSamples } from '../../test/processors/document/fixtures.ts';
import { writePhotoPdf } from '../../test/processors/pdf/fixtures.ts';
import { DEFAULT_SETTINGS } from '../../test/support/host-settings.ts';
import { makeClip, makeTone } from '../../test/support/media.ts';
import { CpuMeter } from '../shared/cpu-meter.ts';
import { writeReadmeSection } from '../shared/readme-section.ts';

const root = resolve(import.meta.dirname, '..', '..');
const rounds = process.argv.includes('--quick') ? 1 : 3;
const scratch = mkdtempSync(join(tmpdir(), 'presso-bench-sandbox-'));

interface Job {
  kind: string;
  what: string;
  processor: Processor;
  path: string;
  params: Record<string, unknown>;
}

const meter = CpuMeter.open('sandbox');

async function inputs(): Promise<Job[]> {
  const dir = join(scratch, 'inputs');
  mkdirSync(dir);
  const images = createImageProcessor({ timeBudgetMs: 30 * 60_000 });
  const photo = join(dir, 'photo.png');
  const noise = await sharp({
    create: {
      width: 640,
      height: 480,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 30 },
    },
  })
    .png()
    .toBuffer();
  await sharp(noise).blur(2).toFile(photo);
  const svg = join(dir, 'drawing.svg');
  writeFileSync(
    svg,
    '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300" viewBox="0 0 400 300">' +
      '<rect width="400" height="300" fill="#236"/><circle cx="200" cy="150" r="100" fill="#fc3"/>' +
      '<text x="20" y="40" font-size="24" fill="#fff">Presso</text></svg>',
  );
  const gif = join(dir, 'animation.gif');
  makeClip(gif, { width: 160, height: 120, seconds: 1, fps: 10, audio: false, encode: ['-f', 'gif'] });
  mkdirSync(join(dir, 'office'));
  mkdirSync(join(dir, 'archives'));
  const office = makeOfficeSamples(join(dir, 'office'), ['docx']);
  const archives = writeArchives(join(dir, 'archives'));
  return [
    {
      kind: 'image',
      what: 'PNG to JPEG XL (cjxl, djxl)',
      processor: images,
      path: photo,
      params: { format: 'jxl' },
    },
    {
      kind: 'image',
      what: 'SVG to PNG (Node child)',
      processor: images,
      path: svg,
      params: { format: 'png' },
    },
    { kind: 'image', what: 'GIF (gifsicle)', processor: images, path: gif, params: {} },
    {
      kind: 'pdf',
      what: '3-page photo PDF',
      processor: createPdfProcessor(),
      path: await writePhotoPdf(dir),
      params: {},
    },
    {
      kind: 'document',
      what: 'DOCX with a photo (LibreOffice check)',
      processor: createDocumentProcessor(images, {}, DEFAULT_SETTINGS),
      path: office.docx!,
      params: {},
    },
    {
      kind: 'document',
      what: 'DOCX to PDF (LibreOffice)',
      processor: createDocumentProcessor(images, {}, DEFAULT_SETTINGS),
      path: office.docx!,
      params: { format: 'pdf' },
    },
    {
      kind: 'video',
      what: '2 s 320×240 H.264 clip',
      processor: createVideoProcessor(),
      path: makeClip(join(dir, 'clip.mp4'), { width: 320, height: 240, seconds: 2 }),
      params: {},
    },
    {
      kind: 'audio',
      what: '10 s MP3 tone',
      processor: createAudioProcessor(),
      path: makeTone(join(dir, 'tone.mp3'), ['-c:a', 'libmp3lame', '-b:a', '192k'], 10),
      params: {},
    },
    {
      kind: 'archive',
      what: 'ZIP to TAR.XZ (7-Zip, bsdtar, xz)',
      processor: createArchiveProcessor(() => undefined),
      path: archives.zip,
      params: { format: 'tar.xz' },
    },
    {
      kind: 'archive',
      what: 'ZIP deep (members, advzip)',
      processor: createArchiveProcessor((kind) => (kind === 'image' ? images : undefined)),
      path: archives.zip,
      params: { deep: true },
    },
  ];
}

interface Sample {
  wallMs: number;
  cpuMs: number;
}

async function runOnce(job: Job, mode: SandboxMode, index: number): Promise<Sample> {
  setSandboxMode(mode);
  const detected = await detectFile(job.path);
  if (detected === undefined) throw new Error(`bench input not detected: ${job.path}`);
  const workDir = join(scratch, `job-${index}`);
  mkdirSync(workDir);
  let wallMs = 0;
  const { seconds } = await meter.measure(async () => {
    const started = performance.now();
    await job.processor.process({
      input: { ...detected, path: job.path, name: basename(job.path), size: statSync(job.path).size },
      params: job.params,
      workDir,
      signal: new AbortController().signal,
      wantMetadata: false,
    });
    wallMs = performance.now() - started;
  });
  const sample = { wallMs, cpuMs: seconds * 1000 };
  rmSync(workDir, { recursive: true, force: true });
  return sample;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const problem = await probeSandbox();
  if (problem !== undefined) throw new Error(`bubblewrap cannot run here: ${problem}`);
  const jobs = await inputs();
  const samples = new Map<Job, Record<SandboxMode, Sample[]>>();
  for (const job of jobs) samples.set(job, { bwrap: [], off: [] });
  let index = 0;
  // A warm-up of each job in each mode (page cache, font caches), not counted.
  for (const job of jobs) for (const mode of ['bwrap', 'off'] as const) await runOnce(job, mode, index++);
  for (let round = 0; round < rounds; round++) {
    for (const job of jobs) {
      // Alternate which mode goes first, so neither always follows the other's cache state.
      const order: SandboxMode[] = round % 2 === 0 ? ['bwrap', 'off'] : ['off', 'bwrap'];
      for (const mode of order) samples.get(job)![mode].push(await runOnce(job, mode, index++));
    }
  }
  setSandboxMode('bwrap');

  const rows = jobs.map((job) => {
    const { bwrap, off } = samples.get(job)!;
    const on = { wallMs: median(bwrap.map((s) => s.wallMs)), cpuMs: median(bwrap.map((s) => s.cpuMs)) };
    const without = { wallMs: median(off.map((s) => s.wallMs)), cpuMs: median(off.map((s) => s.cpuMs)) };
    return { kind: job.kind, what: job.what, on, off: without };
  });
  const ms = (value: number) => `${Math.round(value)}`;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const table = [
    `Median of ${rounds} round(s) per job, the sandbox on (\`bwrap\`) and off in the same run, alternated.`,
    'CPU is this process and every process it started, bubblewrap and the tools inside it (a cgroup of its own).',
    '',
    '| Kind | Job | Wall on (ms) | Wall off (ms) | Wall ratio | CPU on (ms) | CPU off (ms) | CPU ratio |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.kind} | ${r.what} | ${ms(r.on.wallMs)} | ${ms(r.off.wallMs)} | ${ratio(r.on.wallMs, r.off.wallMs)} | ` +
        `${ms(r.on.cpuMs)} | ${ms(r.off.cpuMs)} | ${ratio(r.on.cpuMs, r.off.cpuMs)} |`,
    ),
  ].join('\n');
  console.log(table);
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  writeFileSync(
    join(root, 'bench/results/sandbox.json'),
    `${JSON.stringify({ rounds, rows, samples: jobs.map((job) => ({ what: job.what, ...samples.get(job) })) }, null, 2)}\n`,
  );
  if (!writeReadmeSection(join(root, 'docs/benchmarks.md'), 'sandbox', table)) {
    console.error('docs/benchmarks.md has no bench:sandbox markers; the table was not written there');
  }
}

try {
  await main();
} finally {
  await meter.close();
  rmSync(scratch, { recursive: true, force: true });
}
