/**
 * The PDF engines behind one small interface, tried in the configured order (gotenberg's
 * `pdfengines/multi.go`): each makes at most one candidate, an engine that fails is skipped, and the
 * processor keeps the smallest valid candidate. Ghostscript rewrites the page content (image
 * downsampling and recompression searched against the level's rendered-page target, font subsetting,
 * duplicate images); qpdf rewrites only the structure (object streams, recompressed Flate streams,
 * linearisation) and changes no pixel. Every candidate ends with the qpdf pass, so sizes compare fairly.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Processor } from '../processor.ts';
import { type PdfToolRun, pdfTool } from '../shared/pdf-tools.ts';
import type { PdfEngineName } from './config.ts';
import { imageUpdates } from './embedded-images.ts';
import { ghostscript, type ImageSettings, LADDER } from './ghostscript.ts';
import type { PageScorer } from './page-score.ts';
import type { PdfParams } from './params.ts';
import { applyUpdates, readObjects } from './pdf-objects.ts';
import { privateDataUpdates } from './private-data.ts';
import { LADDER_START, PAGE_TARGETS } from './targets.ts';

export interface EngineJob {
  params: PdfParams;
  /** The image processor, for the `images` engine (embedded images recompressed in place). */
  images?: Processor;
  run: PdfToolRun;
  maxTrials: number;
  /** Made on first use: a lossless job renders nothing. */
  scorer(): Promise<PageScorer>;
  /** Reports each trial for the log and the tests: the settings, the bytes and the score. */
  onTrial?(trial: { engine: PdfEngineName; settings: string; bytes: number; score?: number }): void;
}

export interface PdfEngine {
  readonly name: PdfEngineName;
  /** True when the engine rewrites page content, as grayscale and PDF/A output need. */
  readonly rewritesContent: boolean;
  /** The path of a finished candidate, or undefined when this engine has none for the request. */
  optimise(input: string, job: EngineJob): Promise<string | undefined>;
}

export const ENGINES: Record<PdfEngineName, PdfEngine> = {
  qpdf: {
    name: 'qpdf',
    rewritesContent: false,
    async optimise(input, job) {
      const output = join(job.run.workDir, 'qpdf.pdf');
      await finish(await withoutPrivateData(input, job), output, job);
      return output;
    },
  },
  images: {
    name: 'images',
    rewritesContent: false,
    optimise: imagesCandidate,
  },
  ghostscript: {
    name: 'ghostscript',
    rewritesContent: true,
    optimise: ghostscriptCandidate,
  },
};

/**
 * The input without other applications' private data (private-data.ts): no pixel changes, so every
 * level, `lossless` included, starts from it. A PDF whose objects qpdf cannot list as JSON is used as is.
 */
async function withoutPrivateData(input: string, job: EngineJob): Promise<string> {
  try {
    const pdf = await readObjects(input, job.run);
    const updates = privateDataUpdates(pdf);
    if (updates.size === 0) return input;
    const output = join(job.run.workDir, 'without-private-data.pdf');
    await applyUpdates(input, output, pdf, updates, job.run);
    return output;
  } catch (error) {
    if (job.run.signal.aborted || job.run.deadline.isExceeded()) throw error;
    return input;
  }
}

/**
 * Lossy levels: embedded images recompressed in place (embedded-images.ts), private data dropped, then
 * the rendered pages scored like every other candidate; a result under the level's target is not offered.
 */
async function imagesCandidate(input: string, job: EngineJob): Promise<string | undefined> {
  const { params, images, run } = job;
  if (params.compression === 'lossless' || images === undefined) return undefined;
  const pdf = await readObjects(input, run);
  const { updates: replaced, pages } = await imageUpdates(input, pdf, {
    images,
    level: params.compression,
    run,
  });
  if (replaced.size === 0) return undefined;
  const updates = new Map([...privateDataUpdates(pdf), ...replaced]);
  const edited = join(run.workDir, 'images-raw.pdf');
  await applyUpdates(input, edited, pdf, updates, run);
  const output = join(run.workDir, 'images.pdf');
  await finish(edited, output, job);
  // The pages that draw a replaced image are the ones that can have changed.
  const score = await (await job.scorer()).score(output, 'images', pages);
  job.onTrial?.({
    engine: 'images',
    settings: `${replaced.size} images as JPEG`,
    bytes: await size(output),
    score,
  });
  return score >= PAGE_TARGETS[params.compression] ? output : undefined;
}

/** qpdf's lossless structure pass: object streams, every Flate stream recompressed at level 9. */
export async function finish(input: string, output: string, job: EngineJob): Promise<void> {
  const args = [
    '--object-streams=generate',
    '--compress-streams=y',
    '--recompress-flate',
    '--compression-level=9',
    ...(job.params.linearize ? ['--linearize'] : []),
    input,
    output,
  ];
  await pdfTool('qpdf', args, job.run);
}

/**
 * Lossy levels walk the ladder from the level's rung towards gentler settings and keep the first
 * candidate whose rendered pages meet the target, trying at most `maxTrials` rungs (a budget in
 * trials, never in seconds). `lossless` (only asked of Ghostscript for grayscale or PDF/A) and a
 * search that found nothing for a request that needs Ghostscript use lossless image settings.
 */
async function ghostscriptCandidate(input: string, job: EngineJob): Promise<string | undefined> {
  const { params } = job;
  const needed = params.grayscale || params.pdfa;
  if (params.compression === 'lossless') {
    return needed ? rewrite(input, 'lossless', 'gs-lossless', job) : undefined;
  }
  const target = PAGE_TARGETS[params.compression];
  const rungs = LADDER.slice(LADDER_START[params.compression]).slice(0, job.maxTrials);
  const scorer = await job.scorer();
  for (const [index, settings] of rungs.entries()) {
    const candidate = await rewrite(input, settings, `gs-${index}`, job, false);
    const score = await scorer.score(candidate, `gs-${index}`);
    job.onTrial?.({
      engine: 'ghostscript',
      settings: describe(settings),
      bytes: await size(candidate),
      score,
    });
    if (score >= target) return candidate;
  }
  return needed ? rewrite(input, 'lossless', 'gs-lossless', job) : undefined;
}

async function rewrite(
  input: string,
  settings: ImageSettings | 'lossless',
  tag: string,
  job: EngineJob,
  report = true,
): Promise<string> {
  const written = join(job.run.workDir, `${tag}-raw.pdf`);
  const { grayscale, pdfa } = job.params;
  await ghostscript(input, written, { images: settings, grayscale, pdfa }, job.run);
  const output = join(job.run.workDir, `${tag}.pdf`);
  await finish(written, output, job);
  if (report)
    job.onTrial?.({ engine: 'ghostscript', settings: describe(settings), bytes: await size(output) });
  return output;
}

function describe(settings: ImageSettings | 'lossless'): string {
  return settings === 'lossless' ? 'lossless images' : `${settings.dpi} dpi, QFactor ${settings.qFactor}`;
}

async function size(path: string): Promise<number> {
  return (await stat(path)).size;
}
