/**
 * The archives benchmark (issue 11), one command: `npm run bench:archives`. Folders of real files from the
 * Debian packages of the benchmark corpus are archived by the usual tools, then re-packed by Presso in the
 * same run: a ZIP against `zip -9` (plain and deep), a TAR against `xz -9`, `7z -mx9`, `zstd -19` and
 * `gzip -9` in the matching formats; the documentation site as a website bundle against its input, with a
 * sample of its pages loaded in headless Chromium. Bytes and CPU time (user+sys, tools included: a cgroup per
 * run, bench/shared/cpu-meter.ts, since the sandboxed tools escape this process's rusage), targets.
 * Prints a Markdown table, writes it into README.md between the bench:archives markers, and writes
 * bench/results/archives.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { detectFile } from '../../src/media/detect.ts';
import { createArchiveProcessor } from '../../src/processors/archive/archive-processor.ts';
import { createBundleProcessor } from '../../src/processors/bundle/bundle-processor.ts';
import { createDocumentProcessor } from '../../src/processors/document/document-processor.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { createPdfProcessor } from '../../src/processors/pdf/pdf-processor.ts';
import type { Processor } from '../../src/processors/processor.ts';
import { loadPages } from '../../test/processors/bundle/browser.ts';
import { DEFAULT_SETTINGS } from '../../test/support/host-settings.ts';
import { CpuMeter } from '../shared/cpu-meter.ts';
import { writeReadmeSection } from '../shared/readme-section.ts';

const root = resolve(import.meta.dirname, '..', '..');
const corpus = resolve(root, process.env.PRESSO_BENCH_CORPUS ?? '.corpus/bench');
const scratch = mkdtempSync(join(tmpdir(), 'presso-bench-archives-'));
const quick = process.argv.includes('--quick');

/** Folders archived for the run: what they stand for, their package and path in it. */
const FOLDERS = [
  {
    name: 'documentation site',
    package: 'debian-handbook',
    path: 'usr/share/doc/debian-handbook/html/en-US',
    photos: false,
  },
  {
    name: 'photo folder',
    package: 'mate-backgrounds',
    path: 'usr/share/backgrounds/mate/nature',
    photos: true,
  },
  {
    name: 'help screenshots',
    package: 'gnome-user-docs',
    path: 'usr/share/help/C/gnome-help/figures',
    photos: false,
  },
  {
    name: 'Python package',
    package: 'python3-skimage',
    path: 'usr/lib/python3/dist-packages/skimage',
    photos: false,
  },
].slice(0, quick ? 2 : undefined);

const images = createImageProcessor();
const others: Processor[] = [
  images,
  createPdfProcessor(),
  createDocumentProcessor(images, {}, DEFAULT_SETTINGS),
];
const archives = createArchiveProcessor((kind) => others.find((p) => p.kind === kind));
const bundles = createBundleProcessor(images, {}, DEFAULT_SETTINGS);

const meter = CpuMeter.open('archives');

/** CPU seconds of this process and of every process it starts during `work`, the sandboxed tools included. */
async function measured<T>(work: () => T | Promise<T>): Promise<{ value: T; cpu: number }> {
  const { value, seconds } = await meter.measure(work);
  return { value, cpu: seconds };
}

async function presso(
  input: string,
  params: Record<string, unknown>,
  tag: string,
  processor: Processor = archives,
) {
  const found = (await detectFile(input))!;
  // A ZIP holding index.html is a website bundle to the service; the archive rows treat it as a ZIP.
  const detected =
    processor === archives && found.kind === 'bundle'
      ? { kind: 'archive' as const, format: 'zip', mime: found.mime }
      : found;
  const workDir = join(scratch, `work-${tag}`);
  mkdirSync(workDir);
  const { value: result, cpu } = await measured(() =>
    processor.process({
      input: { ...detected, path: input, name: basename(input), size: statSync(input).size },
      params,
      workDir,
      signal: new AbortController().signal,
      wantMetadata: false,
    }),
  );
  return { bytes: statSync(result.path).size, cpu, path: result.path };
}

interface Row {
  folder: string;
  package: string;
  comparison: string;
  peer: string;
  peerBytes: number;
  pressoBytes: number;
  ratio: number;
  peerCpu: number;
  pressoCpu: number;
}

const rows: Row[] = [];
const sh = (cwd: string, command: string, args: string[]) =>
  execFileSync(command, args, { cwd, stdio: 'pipe' });

for (const folder of FOLDERS) {
  const source = join(corpus, folder.path);
  const tag = folder.package;
  const zip = join(scratch, `${tag}.zip`);
  const tar = join(scratch, `${tag}.tar`);
  const zipped = await measured(() => sh(source, 'zip', ['-q', '-r', '-9', '-X', zip, '.']));
  sh(source, 'tar', ['--sort=name', '--owner=0', '--group=0', '-cf', tar, '.']);
  const row = (
    comparison: string,
    peer: string,
    peerBytes: number,
    peerCpu: number,
    p: { bytes: number; cpu: number },
  ) =>
    rows.push({
      folder: folder.name,
      package: `${folder.package}: ${folder.path}`,
      comparison,
      peer,
      peerBytes,
      pressoBytes: p.bytes,
      ratio: p.bytes / peerBytes,
      peerCpu,
      pressoCpu: p.cpu,
    });
  const zipBytes = statSync(zip).size;
  row(
    'ZIP re-pack',
    'zip -9',
    zipBytes,
    zipped.cpu,
    await presso(zip, { compression: 'high' }, `${tag}-zip`),
  );
  row(
    'ZIP deep',
    'zip -9',
    zipBytes,
    zipped.cpu,
    await presso(zip, { compression: 'high', deep: true }, `${tag}-deep`),
  );
  const peers: [string, string, string[], string][] = [
    ['tar.xz', 'xz -9', ['xz', '-9', '-T1', '-k', '-c', tar], 'tar.xz'],
    ['tar.zst', 'zstd -19', ['zstd', '-19', '-q', '-c', tar], 'tar.zst'],
    ['tar.gz', 'gzip -9', ['gzip', '-9', '-n', '-c', tar], 'tar.gz'],
  ];
  for (const [format, peer, [command, ...args]] of peers) {
    const out = join(scratch, `${tag}.peer.${format}`);
    const run = await measured(() =>
      writeFileSync(out, execFileSync(command!, args!, { maxBuffer: 1 << 30 })),
    );
    row(
      `TAR → ${format}`,
      peer,
      statSync(out).size,
      run.cpu,
      await presso(tar, { compression: 'high', format }, `${tag}-${format}`),
    );
  }
  const seven = join(scratch, `${tag}.peer.7z`);
  const sevenRun = await measured(() => sh(source, '7zz', ['a', '-bd', '-mx=9', '-mmt=2', seven, '.']));
  row(
    'TAR → 7z',
    '7z -mx9',
    statSync(seven).size,
    sevenRun.cpu,
    await presso(tar, { compression: 'high', format: '7z' }, `${tag}-7z`),
  );
  for (const r of rows.filter((r) => r.folder === folder.name)) {
    console.log(
      `${r.folder} | ${r.comparison}: ${r.pressoBytes} vs ${r.peer} ${r.peerBytes} = ${r.ratio.toFixed(3)}, CPU ${r.pressoCpu.toFixed(1)} s vs ${r.peerCpu.toFixed(1)} s`,
    );
  }
}

// ---- Website bundle: the documentation site as a ZIP, images to WebP, pages checked in Chromium ----------
const site = FOLDERS[0]!;
const siteZip = join(scratch, `${site.package}.zip`);
const bundle = await presso(siteZip, { compression: 'high', images: { format: 'webp' } }, 'bundle', bundles);
const bundleRatio = bundle.bytes / statSync(siteZip).size;
const unpacked = join(scratch, 'bundle-out');
mkdirSync(unpacked);
execFileSync('unzip', ['-q', bundle.path, '-d', unpacked]);
const pages = readdirSync(unpacked)
  .filter((f) => f.endsWith('.html'))
  .sort();
const sampled = pages.filter((_, i) => i % Math.max(1, Math.floor(pages.length / (quick ? 4 : 12))) === 0);
const loads = await loadPages(unpacked, sampled, []);
const failedRequests = loads.reduce((n, l) => n + l.failed.length + l.brokenImages.length, 0);
const requests = loads.reduce((n, l) => n + l.requested.length, 0);
console.log(
  `bundle: ${bundle.bytes} of ${statSync(siteZip).size} = ${bundleRatio.toFixed(3)}, ${sampled.length} pages, ${requests} requests, ${failedRequests} failed`,
);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
};
const zipPlain = median(rows.filter((r) => r.comparison === 'ZIP re-pack').map((r) => r.ratio));
const deepPhotos = median(
  rows
    .filter((r) => r.comparison === 'ZIP deep' && FOLDERS.find((f) => f.name === r.folder)?.photos)
    .map((r) => r.ratio),
);
const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
const date = new Date().toISOString().slice(0, 10);
const markdown = [
  `Run: \`npm run bench:archives\`, ${date}, ${FOLDERS.length} folders from Debian packages, \`high\`. CPU is user+sys, tools included (a cgroup per run, the sandboxed tools too).`,
  '',
  '| target | measured | |',
  '|---|---|---|',
  `| plain ZIP re-pack ≤ 0.95 × \`zip -9\` (median) | ${zipPlain.toFixed(3)} | ${verdict(zipPlain <= 0.95)} |`,
  `| deep ZIP of a photo folder ≤ 0.6 × \`zip -9\` | ${deepPhotos.toFixed(3)} | ${verdict(deepPhotos <= 0.6)} |`,
  `| website bundle ≤ 0.7 × its input (${site.package}, images to WebP) | ${bundleRatio.toFixed(3)} | ${verdict(bundleRatio <= 0.7)} |`,
  `| every request of ${sampled.length} pages of the bundle resolves in Chromium (${requests} requests) | ${failedRequests} failed | ${verdict(failedRequests === 0)} |`,
  '',
  '| folder (package: path) | comparison | peer | peer bytes | Presso bytes | ratio | CPU s, peer / Presso |',
  '|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.folder} (${r.package}) | ${r.comparison} | ${r.peer} | ${r.peerBytes} | ${r.pressoBytes} | ${r.ratio.toFixed(3)} | ${r.peerCpu.toFixed(1)} / ${r.pressoCpu.toFixed(1)} |`,
  ),
].join('\n');
console.log(`\n${markdown}`);
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(
  join(root, 'bench/results/archives.json'),
  `${JSON.stringify({ date, quick, zipPlain, deepPhotos, rows }, null, 2)}\n`,
);
if (!quick && writeReadmeSection(join(root, 'README.md'), 'archives', markdown))
  console.log('README updated');
await meter.close();
rmSync(scratch, { recursive: true, force: true });
