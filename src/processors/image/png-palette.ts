/**
 * The palette candidate of a lossy PNG: libimagequant (sharp's palette PNG, what pngquant does) at the lowest
 * quality whose output meets the level's target, scored on the wide mosaic like every PNG candidate.
 *
 * One libimagequant quality per level (90 / 80 / 65) was not enough (issue 8):
 *  - a palette input (a screenshot with transparency, a glow with 49 colours) came back unchanged: below
 *    quality 100 libimagequant drops to ~20 colours and the score falls from 100 to 71–83, so the palette
 *    "failed" and the larger near-lossless file lost to the input. Quality 100 keeps every colour of an
 *    image that has at most 256 (score 100), and oxipng then halves such files (glow 19,267 → 9,506 B);
 *  - quality is not monotonic in the score: a flat wallpaper scored 89.8 at quality 70–95 (5 colours) and
 *    25 at 60 (4 colours), so `ultra` (65) fell to near-lossless at 3× the bytes of `high`'s palette;
 *  - a 142-colour palette met `ultra` where quality 65 did not, and near-lossless won at larger bytes.
 * So quality 100 (at most 256 colours) is tried first: when it misses the target no palette can meet it.
 * Otherwise the lowest passing quality is searched on a fixed ladder (bisection), without dithering
 * first: on flat graphics that costs little score for 10–30 % fewer bytes (skimage logo at 16 colours:
 * 25,883 → 19,538 B, 77.1 → 72.3); on gradients it bands and fails, and dithering is searched.
 */
import type { Sharp } from 'sharp';
import { scoreEncodedAgainstMosaic } from '../shared/metric/score.ts';
import type { RgbImage } from '../shared/metric/ssimulacra2.ts';

/**
 * libimagequant qualities the search may pick below 100, the same for every level. Bisection over this
 * fixed ladder finds the lowest passing rung in at most 4 trials, exactly when the score rises with the
 * quality, whatever the target: a looser target's rung is then never higher. A search aimed from a
 * per-level start with 3 trials was not: on the score's cliffs (MATE stripes 1920×1440) `ultra` stopped
 * at quality 99 where `high` found 93–95, and came out 40–61 % larger than `high`.
 */
const RUNGS = [20, 40, 60, 75, 85, 92, 97, 99] as const;

export interface PaletteCandidate {
  png: Buffer;
  quality: number;
  dither: number;
  score: number;
}

export interface PaletteSearch {
  /** The smallest palette PNG that meets the target; undefined when none does. */
  best: PaletteCandidate | undefined;
  /** The quality-100 palette (its score is the best any palette reaches; its chunks carry the metadata). */
  top: PaletteCandidate;
  trials: number;
}

export function paletteEncoding(quality: number, dither: number) {
  return { palette: true, quality, effort: 10, compressionLevel: 9, dither } as const;
}

/** The smallest palette PNG of `pipeline` whose score against `wide` reaches `target`. */
export async function searchPalette(
  pipeline: Sharp,
  wide: RgbImage,
  target: number,
  signal?: AbortSignal,
): Promise<PaletteSearch> {
  const memo = new Map<string, PaletteCandidate>();
  const trial = async (quality: number, dither: number): Promise<PaletteCandidate> => {
    const key = `${quality}/${dither}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    signal?.throwIfAborted();
    const png = await pipeline.clone().png(paletteEncoding(quality, dither)).toBuffer();
    const candidate = { png, quality, dither, score: await scoreEncodedAgainstMosaic(wide, png, 'png') };
    memo.set(key, candidate);
    return candidate;
  };
  const top = await trial(100, 1);
  if (top.score < target) return { best: undefined, top, trials: 1 };
  // The lowest passing rung for one dithering (bisection); undefined when only quality 100 passes.
  const lowest = async (dither: number): Promise<PaletteCandidate | undefined> => {
    let [lo, hi] = [0, RUNGS.length - 1];
    let found: PaletteCandidate | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const candidate = await trial(RUNGS[mid]!, dither);
      if (candidate.score >= target) {
        found = candidate;
        hi = mid - 1;
      } else lo = mid + 1;
    }
    return found;
  };
  // Undithered first: at equal quality it is the smaller file. Dithering is searched only when no
  // undithered palette below quality 100 passes (gradients band without it). Deciding the dithering by
  // what passes keeps the levels monotonic: an undithered palette that meets a stricter target meets a
  // looser one, so the looser level stays undithered, at a quality no higher.
  const flat = await lowest(0);
  const dithered = flat === undefined ? await lowest(1) : undefined;
  const passing = [top, flat, dithered].filter((c) => c !== undefined && c.score >= target);
  const best = (passing as PaletteCandidate[]).reduce((a, b) => (b.png.length < a.png.length ? b : a));
  return { best, top, trials: memo.size };
}
