/**
 * Rendered-page quality: the pages of a candidate are drawn at a fixed resolution by Poppler and scored
 * against the same pages of the input with the project's SSIMULACRA 2 (the image levels' metric). The
 * work is counted in pages: only pages that draw images are scored (text and vector art come through
 * pdfwrite as text and vectors), at most `scoredPages` of them, and the reference pages are drawn once.
 */
import { join } from 'node:path';
import { scorePixels } from '../shared/metric/score.ts';
import type { RgbImage } from '../shared/metric/ssimulacra2.ts';
import { imagePages, type PdfToolRun, renderPage } from '../shared/pdf-tools.ts';
import { readPnm } from './pnm.ts';

/** Screen resolution: what a reader sees at 100 % zoom, where lost image detail shows. */
export const SCORE_DPI = 96;

export interface PageScorer {
  /** The pages scored, 1-based. */
  readonly pages: readonly number[];
  /**
   * The lowest page score of `candidate` (SSIMULACRA 2, 100 = identical), over `pages` (1-based; at most
   * `scoredPages` of them, spread) or the scorer's own sample of pages with images.
   */
  score(candidate: string, tag: string, pages?: readonly number[]): Promise<number>;
}

export async function pageScorer(
  reference: string,
  options: { scoredPages: number; gray: boolean },
  run: PdfToolRun,
): Promise<PageScorer> {
  const { pages: withImages } = await imagePages(reference, run);
  // Spread the sample over the document: first, last and evenly between.
  const pages = spread(withImages.length > 0 ? withImages : [1], options.scoredPages);
  // Each reference page is drawn once, when first scored.
  const references = new Map<number, RgbImage>();
  const referencePage = async (page: number) => {
    let image = references.get(page);
    if (image === undefined) {
      const prefix = join(run.workDir, `ref-${page}`);
      image = await readPnm(await renderPage(reference, page, prefix, SCORE_DPI, options.gray, run));
      references.set(page, image);
    }
    return image;
  };
  for (const page of pages) await referencePage(page);
  return {
    pages,
    async score(candidate, tag, only) {
      let lowest = 100;
      for (const page of only === undefined ? pages : spread([...only], options.scoredPages)) {
        run.signal.throwIfAborted();
        const drawn = await renderPage(
          candidate,
          page,
          join(run.workDir, `${tag}-${page}`),
          SCORE_DPI,
          options.gray,
          run,
        );
        lowest = Math.min(lowest, await scorePixels(await referencePage(page), await readPnm(drawn)));
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
