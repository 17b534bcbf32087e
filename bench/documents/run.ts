/**
 * The documents benchmark (issue 10), one command: `npm run bench:documents`. Per PDF: Presso `high`
 * against `gs -dPDFSETTINGS=/ebook` and against `qpdf --recompress-flate --object-streams=generate`, in
 * the same run, with bytes and the rendered-page score (lowest SSIMULACRA 2 over up to 6 pages with
 * images, drawn at 96 dpi, against the input). Per office document: Presso `high` against the input and
 * a plain `zip -9` re-pack. CPU time per page, the tools included: each run in a cgroup of its own
 * (bench/shared/cpu-meter.ts; the sandboxed tools escape this process's rusage). Prints a Markdown table,
 * writes it into README.md between the bench:documents markers, and writes bench/results/documents.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { detectFile } from '../../src/media/detect.ts';
import { createDocumentProcessor } from '../../src/processors/document/document-processor.ts';
import { START_SETTINGS, settingsFile, settingsXcu } from '../../src/processors/document/office-profile.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { createPdfProcessor } from '../../src/processors/pdf/pdf-processor.ts';
import { readPnm } from '../../src/processors/pdf/pnm.ts';
import { scorePixels } from '../../src/processors/shared/metric/score.ts';
import { DEFAULT_SETTINGS } from '../../test/support/host-settings.ts';
import { CpuMeter } from '../shared/cpu-meter.ts';
import { writeReadmeSection } from '../shared/readme-section.ts';

const root = resolve(import.meta.dirname, '..', '..');
const corpus = resolve(root, process.env.PRESSO_BENCH_CORPUS ?? '.corpus/bench');
const forensics = join(corpus, 'usr/share/forensics-samples/original-files');
const scratch = mkdtempSync(join(tmpdir(), 'presso-bench-documents-'));

const PDFS: { file: string; package: string; password?: string }[] = [
  { file: join(corpus, 'usr/share/doc/ghostscript/GS9_Color_Management.pdf'), package: 'ghostscript-doc' },
  { file: join(corpus, 'usr/share/doc/gnuplot/gnuplot.pdf'), package: 'gnuplot-doc' },
  { file: join(forensics, 'text1/a-text.pdf'), package: 'forensics-samples-files' },
  { file: join(forensics, 'text1/a-text-pass-A5d.pdf'), package: 'forensics-samples-files', password: 'A5d' },
];

const meter = CpuMeter.open('documents');

function pages(path: string): number {
  return Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [path], { encoding: 'utf8' }))?.[1]);
}

/** Up to 6 pages with images, spread over the document (page 1 when there are none). */
function samplePages(path: string): number[] {
  const list = execFileSync('pdfimages', ['-list', path], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const withImages = [
    ...new Set(
      list
        .split('\n')
        .slice(2)
        .map((l) => Number(l.trim().split(/\s+/)[0]))
        .filter((n) => n > 0),
    ),
  ];
  const all = withImages.length > 0 ? withImages : [1];
  if (all.length <= 6) return all;
  return [...new Set(Array.from({ length: 6 }, (_, i) => all[Math.round((i * (all.length - 1)) / 5)]!))];
}

async function pageScore(
  reference: string,
  candidate: string,
  sampled: number[],
  tag: string,
): Promise<number> {
  let lowest = 100;
  for (const page of sampled) {
    const draw = (pdf: string, name: string) => {
      const prefix = join(scratch, `${tag}-${name}-${page}`);
      execFileSync('pdftoppm', [
        '-r',
        '96',
        '-f',
        String(page),
        '-l',
        String(page),
        '-singlefile',
        pdf,
        prefix,
      ]);
      return readPnm(`${prefix}.ppm`);
    };
    lowest = Math.min(lowest, await scorePixels(await draw(reference, 'ref'), await draw(candidate, 'out')));
  }
  return lowest;
}

const rows: Record<string, unknown>[] = [];
// As the service builds it: embedded images go through the image processor (the `images` engine).
const pdfProcessor = createPdfProcessor({ images: createImageProcessor() });
for (const { file, package: pkg, password } of PDFS) {
  const tag = basename(file, '.pdf');
  const dir = join(scratch, tag);
  mkdirSync(dir, { recursive: true });
  let input = file;
  if (password !== undefined) {
    input = join(dir, 'decrypted.pdf');
    execFileSync('qpdf', ['--decrypt', `--password=${password}`, file, input]);
  }
  const count = pages(input);
  const sampled = samplePages(input);
  const work = join(dir, 'presso');
  mkdirSync(work);
  const { value: result, seconds: pressoCpu } = await meter.measure(() =>
    pdfProcessor.process({
      input: {
        path: file,
        name: basename(file),
        kind: 'pdf',
        format: 'pdf',
        mime: 'application/pdf',
        size: statSync(file).size,
      },
      params: { compression: 'high', ...(password === undefined ? {} : { password }) },
      workDir: work,
      signal: new AbortController().signal,
      wantMetadata: false,
    }),
  );
  const presso = statSync(result.path).size <= statSync(file).size ? result.path : file; // the runner's never-larger rule
  const ebook = join(dir, 'ebook.pdf');
  const { seconds: ebookCpu } = await meter.measure(() =>
    execFileSync('gs', [
      '-q',
      '-dNOPAUSE',
      '-dBATCH',
      '-dSAFER',
      '-sDEVICE=pdfwrite',
      '-dCompatibilityLevel=1.5',
      '-dPDFSETTINGS=/ebook',
      `-sOutputFile=${ebook}`,
      input,
    ]),
  );
  const qpdf = join(dir, 'qpdf.pdf');
  execFileSync('qpdf', ['--recompress-flate', '--object-streams=generate', input, qpdf]);
  const bytes = (path: string) => statSync(path).size;
  rows.push({
    file: basename(file),
    package: pkg,
    pages: count,
    inputBytes: bytes(file),
    pressoBytes: bytes(presso),
    pressoScore: await pageScore(input, presso, sampled, `${tag}-p`),
    ebookBytes: bytes(ebook),
    ebookScore: await pageScore(input, ebook, sampled, `${tag}-e`),
    qpdfBytes: bytes(qpdf),
    qpdfScore: await pageScore(input, qpdf, sampled, `${tag}-q`),
    pressoVsEbook: bytes(presso) / bytes(ebook),
    pressoCpuPerPage: pressoCpu / count,
    ebookCpuPerPage: ebookCpu / count,
  });
  console.error(`done ${tag}`);
}

// Office documents: the forensics DOCX and ODT, and a DOCX/ODT with a photo made by LibreOffice.
const officeRows: Record<string, unknown>[] = [];
const html = join(scratch, 'photo-page.html');
const photo = readFileSync(join(forensics, 'pic1/IMG_1054.JPG')).toString('base64');
writeFileSync(
  html,
  `<html><body><h1>Presso</h1><p>Words.</p><img src="data:image/jpeg;base64,${photo}" width="600"></body></html>`,
);
const made = ['docx:MS Word 2007 XML', 'odt'].map((filter) => {
  const out = join(scratch, 'office', filter.split(':')[0]!);
  // The start's settings only (no graphics render tests at the start): the document as LibreOffice makes it.
  mkdirSync(join(out, 'profile', 'user'), { recursive: true });
  writeFileSync(settingsFile(join(out, 'profile')), settingsXcu(START_SETTINGS));
  execFileSync(
    'soffice',
    [
      `-env:UserInstallation=file://${join(out, 'profile')}`,
      '--headless',
      '--convert-to',
      filter,
      '--outdir',
      out,
      html,
    ],
    { stdio: 'ignore' },
  );
  return join(out, `photo-page.${filter.split(':')[0]}`);
});
const documents = createDocumentProcessor(createImageProcessor(), {}, DEFAULT_SETTINGS);
for (const file of [join(forensics, 'text1/a-text.docx'), join(forensics, 'text1/a-text.odt'), ...made]) {
  const detected = (await detectFile(file))!;
  const work = mkdtempSync(join(scratch, 'doc-'));
  const { value: result, seconds: cpu } = await meter.measure(() =>
    documents.process({
      input: { ...detected, path: file, name: basename(file), size: statSync(file).size },
      params: { compression: 'high' },
      workDir: work,
      signal: new AbortController().signal,
      wantMetadata: false,
    }),
  );
  const unzipped = join(work, 'unzipped');
  execFileSync('unzip', ['-q', file, '-d', unzipped]);
  const zip9 = join(work, `zip9.${detected.format}`);
  execFileSync('zip', ['-q', '-9', '-r', zip9, '.'], { cwd: unzipped });
  officeRows.push({
    file: basename(file),
    inputBytes: statSync(file).size,
    pressoBytes: Math.min(statSync(result.path).size, statSync(file).size),
    zip9Bytes: statSync(zip9).size,
    pressoVsInput: Math.min(statSync(result.path).size, statSync(file).size) / statSync(file).size,
    pressoCpu: cpu,
  });
}

const kb = (n: unknown) => `${Math.round(Number(n) / 1024)} KB`;
const f1 = (n: unknown) => Number(n).toFixed(1);
const lines = [
  `Run: \`npm run bench:documents\`, ${new Date().toISOString().slice(0, 10)}, ${availableParallelism()} vCPU, \`high\`. CPU time from a cgroup per run: Presso with every tool it ran in its sandbox, \`gs\` alike.`,
  '',
  '| PDF (package) | pages | input | Presso high (score) | gs /ebook (score) | qpdf (score) | Presso / ebook | CPU s/page Presso, ebook |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.file} (${r.package}) | ${r.pages} | ${kb(r.inputBytes)} | ${kb(r.pressoBytes)} (${f1(r.pressoScore)}) | ${kb(r.ebookBytes)} (${f1(r.ebookScore)}) | ${kb(r.qpdfBytes)} (${f1(r.qpdfScore)}) | ${Number(r.pressoVsEbook).toFixed(2)} | ${Number(r.pressoCpuPerPage).toFixed(3)}, ${Number(r.ebookCpuPerPage).toFixed(3)} |`,
  ),
  '',
  '| Office document | input | Presso high | zip -9 | Presso / input | CPU s |',
  '|---|---|---|---|---|---|',
  ...officeRows.map(
    (r) =>
      `| ${r.file} | ${kb(r.inputBytes)} | ${kb(r.pressoBytes)} | ${kb(r.zip9Bytes)} | ${Number(r.pressoVsInput).toFixed(2)} | ${f1(r.pressoCpu)} |`,
  ),
];
console.log(lines.join('\n'));
// The README's table is this run's: replaced between its markers.
writeReadmeSection(join(root, 'README.md'), 'documents', lines.join('\n'));
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(
  join(root, 'bench/results/documents.json'),
  JSON.stringify({ pdfs: rows, office: officeRows }, null, 2),
);
await meter.close();
rmSync(scratch, { recursive: true, force: true });
