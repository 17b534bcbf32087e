/**
 * Rendered-page quality: the pages of a candidate are drawn at a fixed resolution by Poppler and scored
 * against the same pages of the input with the project's SSIMULACRA 2 (the image levels' metric). The
 * work is counted in pages: only pages that draw images are scored (text and vector art come through
 * pdfwrite as text and vectors), at most `scoredPages` of them, and the reference pages are drawn once.
 */
import { join } from 'node:path';
import { scorePixels } from '../image/quality/score.ts';
import type { RgbImage } from '../image/quality/ssimulacra2.ts';
import { imagePages, type PdfToolRun, renderPage } from './pdf-tools.ts';
import { readPnm } from './pnm.ts';

/** Screen resolution: what a reader sees at 100 % zoom, where lost image detail shows. */
export const SCORE_DPI = 96;

export interface PageScorer {
  /** The pages scored, 1-based. */
  readonly pages: readonly number[];
  /** The lowest page score of `candidate` (SSIMULACRA 2, 100 = identical). */
  score(candidate: string, tag: string): Promise<number>;
}

export async function pageScorer(
  reference: string,
  options: { scoredPages: number; gray: boolean },
  run: PdfToolRun,
): Promise<PageScorer> {
  const { pages: withImages } = await imagePages(reference, run);
  // Spread the sample over the document: first, last and evenly between.
  const pages = spread(withImages.length > 0 ? withImages : [1], options.scoredPages);
  const references = new Map<number, RgbImage>();
  for (const page of pages) {
    const drawn = await renderPage(
      reference,
      page,
      join(run.workDir, `ref-${page}`),
      SCORE_DPI,
      options.gray,
      run,
    );
    references.set(page, await readPnm(drawn));
  }
  return {
    pages,
    async score(candidate, tag) {
      let lowest = 100;
      for (const page of pages) {
        run.signal.throwIfAborted();
        const drawn = await renderPage(
          candidate,
          page,
          join(run.workDir, `${tag}-${page}`),
          SCORE_DPI,
          options.gray,
          run,
        );
        lowest = Math.min(lowest, await scorePixels(references.get(page)!, await readPnm(drawn)));
      }
      return lowest;
    },
  };
}

function spread(pages: number[], count: number): number[] {
  if (pages.length <= count) return pages;
  if (count === 1) return [pages[0]!];
  const picked = new Set<number>();
  for (let i = 0; i < count; i++) picked.add(pages[Math.round((i * (pages.length - 1)) / (count - 1))]!);
  return [...picked];
}
