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
import type { PdfEngineName } from './config.ts';
import { ghostscript, type ImageSettings, LADDER } from './ghostscript.ts';
import type { PageScorer } from './page-score.ts';
import type { PdfParams } from './params.ts';
import { type PdfToolRun, pdfTool } from './pdf-tools.ts';
import { LADDER_START, PAGE_TARGETS } from './targets.ts';

export interface EngineJob {
  params: PdfParams;
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
      await finish(input, output, job);
      return output;
    },
  },
  ghostscript: {
    name: 'ghostscript',
    rewritesContent: true,
    optimise: ghostscriptCandidate,
  },
};

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
