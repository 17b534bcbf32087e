/**
 * What the per-image start predictor (search-model.ts, start-model.json) reads of an image: a few statistics
 * of the search's proxy, computed once per proxy in one pass over its tiles (the proxy is already decoded,
 * at most ~0.5 MP, so this costs a few milliseconds against 0.3–0.7 CPU-s for one trial). They describe what
 * decides how much quality an encoder needs to reach a SSIMULACRA 2 target: fine detail (which masks
 * artefacts but costs bits), flat areas (where blocking and banding show first), colour detail (which 4:2:0
 * chroma halves) and how varied the tones are. Only pixels inside a tile are compared, so tile seams are
 * not read as edges. Alpha is ignored: the search's proxy of an alpha image is scored on its colour too.
 */
import type { TileGrid } from '../shared/metric/pixels.ts';

export interface StartFeatures {
  /** Mean absolute luma difference to the right and lower neighbours (0–255 scale): high-frequency energy. */
  detail: number;
  /** Share of pixels whose luma differs from both neighbours by at most 1 level: smooth areas. */
  flat: number;
  /** Mean absolute difference of the two chroma planes to the right and lower neighbours: colour detail. */
  chroma: number;
  /** Entropy of the luma histogram, bits (0–8). */
  entropy: number;
  /** 1 when the proxy is the whole image (searched on itself, aimed without the proxy margin), else 0. */
  exact: number;
}

export const FEATURE_NAMES = ['detail', 'flat', 'chroma', 'entropy', 'exact'] as const;

/**
 * The terms a fitted start is linear in: the features, and the logarithms of the two energies, whose
 * effect on the needed quality flattens as they grow (a start-model.json entry names the terms it uses).
 */
export function startTerms(features: StartFeatures): Record<string, number> {
  return {
    ...features,
    logDetail: Math.log1p(features.detail),
    logChroma: Math.log1p(features.chroma),
  };
}

const cache = new WeakMap<TileGrid, StartFeatures>();

/** The features of `proxy`, computed on first use and remembered for as long as the proxy lives. */
export function proxyFeatures(proxy: TileGrid): StartFeatures {
  let features = cache.get(proxy);
  if (features === undefined) {
    features = measureFeatures(proxy);
    cache.set(proxy, features);
  }
  return features;
}

function measureFeatures(proxy: TileGrid): StartFeatures {
  const histogram = new Float64Array(256);
  let detail = 0;
  let chroma = 0;
  let flat = 0;
  let pairs = 0;
  let pixels = 0;
  for (const tile of proxy.tiles) {
    const { width, height } = tile;
    // Planes first (each pixel converted once), then the neighbour differences: ~3× fewer conversions.
    const { luma, cb, cr } = planes(tile);
    for (let i = 0; i < luma.length; i++) histogram[luma[i]!] = (histogram[luma[i]!] ?? 0) + 1;
    pixels += luma.length;
    for (let y = 0; y + 1 < height; y++) {
      for (let x = 0; x + 1 < width; x++) {
        const i = y * width + x;
        const dx = Math.abs(luma[i]! - luma[i + 1]!);
        const dy = Math.abs(luma[i]! - luma[i + width]!);
        detail += dx + dy;
        if (dx <= 1 && dy <= 1) flat++;
        chroma +=
          Math.abs(cb[i]! - cb[i + 1]!) +
          Math.abs(cr[i]! - cr[i + 1]!) +
          Math.abs(cb[i]! - cb[i + width]!) +
          Math.abs(cr[i]! - cr[i + width]!);
        pairs++;
      }
    }
  }
  let entropy = 0;
  for (const count of histogram) {
    if (count === 0) continue;
    const p = count / pixels;
    entropy -= p * Math.log2(p);
  }
  const per = Math.max(pairs, 1);
  return {
    detail: detail / per,
    flat: flat / per,
    chroma: chroma / per,
    entropy,
    exact: proxy.tiles.length === 1 ? 1 : 0,
  };
}

/**
 * BT.601 luma (integer 0–255, the weights JPEG's YCbCr uses) and the unscaled chroma differences B − Y and
 * R − Y of every pixel of `tile`.
 */
function planes(tile: TileGrid['tiles'][number]): { luma: Uint8Array; cb: Int16Array; cr: Int16Array } {
  const { data, width, height, channels } = tile;
  const n = width * height;
  const luma = new Uint8Array(n);
  const cb = new Int16Array(n);
  const cr = new Int16Array(n);
  for (let p = 0, i = 0; p < n; p++, i += channels) {
    const r = data[i]!;
    const b = data[i + 2]!;
    const y = (77 * r + 150 * data[i + 1]! + 29 * b + 128) >> 8;
    luma[p] = y;
    cb[p] = b - y;
    cr[p] = r - y;
  }
  return { luma, cb, cr };
}
