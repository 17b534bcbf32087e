/**
 * The PDF processor's limits, declared once: the typed value (`PdfLimits`), its defaults and the
 * `PRESSO_PDF_*` variables that set them.
 */
import { bytes, duration, int, type Loaded, list, section } from '../../config/env.ts';
import { type EarnedTime, timeFloor } from '../shared/time-budget.ts';

/**
 * What a PDF earns on top of its floor (shared/time-budget.ts): 60 s per MiB, or 5 s per page, whichever
 * is less.
 */
export const PDF_TIME_EARNED: EarnedTime = { msPerMiB: 60_000, msPerUnit: 5_000 };

export const PDF_ENGINES = ['images', 'ghostscript', 'qpdf'] as const;
export type PdfEngineName = (typeof PDF_ENGINES)[number];

export const pdfConfig = section(
  {
    /** Wall time one PDF may take in all (every tool run and page score together): a safety stop only. */
    timeBudgetMs: duration('PRESSO_PDF_TIME_BUDGET', {
      default: 180_000,
      doc: 'Most time one PDF may take to process before it is refused; what it gets is earned from PRESSO_PDF_TIME_FLOOR up',
    }),
    timeFloorMs: timeFloor('PDF', 'PDF', 60_000, 'each MiB and each page'),
    maxPages: int('PRESSO_PDF_MAX_PAGES', { default: 2000, min: 1, doc: 'Most pages accepted in a PDF' }),
    /** Private memory of each Ghostscript, qpdf or Poppler run; an object bomb fails its allocation. */
    toolMemoryBytes: bytes('PRESSO_PDF_TOOL_MEMORY', {
      default: 1024 ** 3,
      doc: 'Memory each PDF tool run (Ghostscript, qpdf, Poppler) may allocate',
    }),
    engines: list('PRESSO_PDF_ENGINES', {
      default: [...PDF_ENGINES],
      doc: 'PDF engines tried in this order; the smallest valid result is kept (images, ghostscript, qpdf)',
      check: (item) =>
        (PDF_ENGINES as readonly string[]).includes(item) ? undefined : 'names an unknown engine',
    }),
    /**
     * PDFs one process optimises at once: each runs Ghostscript, qpdf, Poppler renders and image searches
     * (up to a CPU core and `PRESSO_PDF_TOOL_MEMORY` at a time), so the others wait their turn and images
     * keep their share of the workers' CPU.
     */
    jobsInFlight: int('PRESSO_PDF_JOBS', {
      default: 1,
      min: 1,
      max: 64,
      doc: 'PDFs one process optimises at once; others wait their turn so images keep their share',
    }),
    /** Work budget of the lossy search, counted in pages rendered per candidate, never in seconds. */
    scoredPages: int('PRESSO_PDF_SCORED_PAGES', {
      default: 4,
      min: 1,
      max: 100,
      doc: 'Pages with images rendered and scored per lossy candidate',
    }),
    maxTrials: int('PRESSO_PDF_MAX_TRIALS', {
      default: 3,
      min: 1,
      max: 10,
      doc: 'Ghostscript settings tried per lossy PDF before the lossless result is kept',
    }),
  },
  // `check` above admits only engine names.
  (v) => ({ ...v, engines: v.engines as PdfEngineName[] }),
);

export type PdfLimits = Loaded<typeof pdfConfig>;

export const DEFAULT_PDF_LIMITS: PdfLimits = pdfConfig.load({});
