/**
 * The PDF levels as targets on rendered pages (SSIMULACRA 2 of each scored page at 96 dpi against the
 * input's page; the lowest page counts). A page mixes text, vector art and photos, and a re-encoded
 * embedded JPEG drawn by Poppler rarely reads above ~85 even at high quality (measured on the test
 * PDFs: JPEG QFactor 0.3 at 200 dpi reads 84.3), so the targets sit a little below the image levels'.
 */
import type { PdfCompression } from './params.ts';

export type LossyPdfLevel = Exclude<PdfCompression, 'lossless'>;

export const PAGE_TARGETS: Record<LossyPdfLevel, number> = {
  medium: 82,
  high: 75,
  ultra: 65,
};

/** Where each level starts on the Ghostscript ladder (ghostscript.ts `LADDER`). */
export const LADDER_START: Record<LossyPdfLevel, number> = {
  ultra: 0,
  high: 1,
  medium: 2,
};
