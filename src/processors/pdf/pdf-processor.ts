/**
 * The PDF processor: opens the input (decrypting it with `pdf.password`), checks its structure and page
 * count, asks each configured engine for a candidate (engines.ts) and keeps the smallest one that
 * passes qpdf's check with the same page count. Text stays text: no engine rasterises a page.
 */
import { stat } from 'node:fs/promises';
import { PressoError, UnprocessableInputError } from '../../errors/catalog.ts';
import { typedProcessor } from '../module.ts';
import type { Processor, ProcessRequest, ProcessResult } from '../processor.ts';
import { AdmissionBudget } from '../shared/admission-budget.ts';
import { Deadline } from '../shared/deadline.ts';
import { withOverrides } from '../shared/limits.ts';
import { checkStructure, type PdfToolRun, pageCount } from '../shared/pdf-tools.ts';
import { toolScope } from '../shared/run-tool.ts';
import { earnedTimeMs } from '../shared/time-budget.ts';
import { DEFAULT_PDF_LIMITS, PDF_TIME_EARNED, type PdfLimits } from './config.ts';
import { openPdf } from './encryption.ts';
import { ENGINES, type EngineJob } from './engines.ts';
import { describePdf } from './metadata.ts';
import { type PageScorer, pageScorer } from './page-score.ts';
import { type PdfParams, pdfParams } from './params.ts';

export type PdfProcessorOptions = Partial<PdfLimits> & {
  /** The image processor: embedded images are recompressed through it (the `images` engine). */
  images?: Processor;
  /** Sees every engine trial (tests and the benchmark read the search from it). */
  onTrial?: EngineJob['onTrial'];
  /** Receives what a tool warned about while succeeding (qpdf's repairs of a damaged file), for the log. */
  onWarning?: (message: string) => void;
};

/** `budget`: the turns PDFs take (one per job); a process shares one between its processors. */
export function createPdfProcessor(options: PdfProcessorOptions = {}, budget?: AdmissionBudget): Processor {
  const { onTrial, onWarning, images, ...overrides } = options;
  const limits = withOverrides(DEFAULT_PDF_LIMITS, overrides);
  const turns = budget ?? new AdmissionBudget(limits.jobsInFlight);
  return typedProcessor(pdfParams, {
    name: 'pdf',
    kind: 'pdf',
    inputFormats: ['pdf'],
    outputFormats: ['pdf'],
    process: async (request) => {
      const release = await turns.acquire(1, request.signal);
      try {
        // The time budget starts once the job's turn comes: waiting behind another PDF is not its fault.
        return await processPdf(request, limits, { onTrial, onWarning }, images);
      } finally {
        release();
      }
    },
  });
}

async function processPdf(
  request: ProcessRequest<PdfParams>,
  limits: PdfLimits,
  { onTrial, onWarning }: Pick<PdfProcessorOptions, 'onTrial' | 'onWarning'>,
  images: Processor | undefined,
): Promise<ProcessResult> {
  request.signal.throwIfAborted();
  const { params } = request;
  const run: PdfToolRun = {
    // What the file earns by its size (shared/time-budget.ts), then by its pages too.
    deadline: new Deadline(earnedTimeMs(limits, PDF_TIME_EARNED, { bytes: request.input.size }), 'the PDF'),
    signal: request.signal,
    ...toolScope(request),
    memoryBytes: limits.toolMemoryBytes,
    ...(onWarning === undefined ? {} : { warn: onWarning }),
  };

  const opened = await openPdf(request.input.path, params.password, run);
  await checkStructure(opened.path, run);
  const pages = await pageCount(opened.path, run);
  if (pages < 1) throw new UnprocessableInputError('The PDF has no pages.');
  if (pages > limits.maxPages) {
    throw new UnprocessableInputError(`The PDF has ${pages} pages; at most ${limits.maxPages} are accepted.`);
  }
  run.deadline.limitTo(earnedTimeMs(limits, PDF_TIME_EARNED, { bytes: request.input.size, units: pages }));
  const metadata = request.wantMetadata
    ? await describePdf(opened.path, opened.encryption, pages, run)
    : undefined;

  let scorer: Promise<PageScorer> | undefined;
  const job: EngineJob = {
    params,
    run,
    ...(images === undefined ? {} : { images }),
    maxTrials: limits.maxTrials,
    scorer: () => {
      scorer ??= pageScorer(opened.path, { scoredPages: limits.scoredPages, gray: params.grayscale }, run);
      return scorer;
    },
    ...(onTrial === undefined ? {} : { onTrial }),
  };
  // Grayscale and PDF/A need the page content rewritten: only such engines can answer them.
  const rewrite = params.grayscale || params.pdfa;
  const engines = limits.engines.map((name) => ENGINES[name]).filter((e) => !rewrite || e.rewritesContent);
  if (engines.length === 0) {
    throw new UnprocessableInputError(
      'No configured PDF engine can rewrite page content (needs ghostscript).',
    );
  }

  let best: { path: string; bytes: number } | undefined;
  let lastFailure: unknown;
  for (const engine of engines) {
    let candidate: string | undefined;
    try {
      candidate = await engine.optimise(opened.path, job);
      if (candidate !== undefined) await validate(candidate, pages, run);
    } catch (error) {
      // The deadline, an abort and a missing tool end the job; a tool that fails on this file falls back.
      if (request.signal.aborted) throw request.signal.reason;
      if (
        !(error instanceof PressoError) ||
        error.code !== 'INPUT_UNPROCESSABLE' ||
        run.deadline.isExceeded()
      ) {
        throw error;
      }
      lastFailure = error;
      continue;
    }
    if (candidate === undefined) continue;
    const bytes = (await stat(candidate)).size;
    if (best === undefined || bytes < best.bytes) best = { path: candidate, bytes };
  }
  request.signal.throwIfAborted();
  if (best === undefined) {
    throw lastFailure ?? new UnprocessableInputError('No PDF engine produced a valid file.');
  }
  return {
    path: best.path,
    format: 'pdf',
    // Grayscale and PDF/A are asked-for changes: the never-larger rule must not undo them.
    transformed: rewrite,
    ...(metadata === undefined ? {} : { metadata }),
  };
}

/** A candidate counts only when qpdf finds no damage and every page is still there. */
async function validate(candidate: string, pages: number, run: PdfToolRun): Promise<void> {
  await checkStructure(candidate, run);
  const written = await pageCount(candidate, run);
  if (written !== pages) {
    throw new UnprocessableInputError(`An engine wrote ${written} of the PDF's ${pages} pages.`);
  }
}
