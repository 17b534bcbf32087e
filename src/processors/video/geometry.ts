/**
 * The picture's geometry and the filter chain that gives it: rotation, resize (`auto` fits inside the
 * box, `fit` covers it and crops the centre, as for images), even dimensions (4:2:0 needs them), frame
 * rate, HDR tone mapping and 8-bit 4:2:0. ffmpeg applies the file's own rotation (display matrix) before
 * these filters when it decodes, so sizes here start from the displayed picture.
 */
import type { ProbedStream } from '../ffmpeg/probe.ts';
import type { ResolvedVideoParams } from './params.ts';

export interface FramePlan {
  width: number;
  height: number;
  /** The `-vf` chain, without the final pixel format (GIF output needs its own). */
  filters: string[];
  /** The source is PQ or HLG HDR and is tone-mapped to SDR BT.709. */
  toneMapped: boolean;
}

const evenDown = (n: number) => Math.max(2, n - (n % 2));
/** Rounded, then down to even: never outside the requested box. */
const even = (n: number) => evenDown(Math.round(n));

const HDR_TRANSFERS = new Set(['smpte2084', 'arib-std-b67']);

/** zscale linearises, the hable curve maps to SDR, then back to BT.709 limited range. */
const TONE_MAP = [
  'zscale=t=linear:npl=100',
  'format=gbrpf32le',
  'zscale=p=bt709',
  'tonemap=hable:desat=0',
  'zscale=t=bt709:m=bt709:r=tv',
];

export function planFrames(video: ProbedStream, params: ResolvedVideoParams): FramePlan {
  const sourceW = video.width ?? 0;
  const sourceH = video.height ?? 0;
  // Only the request's rotation changes the picture's axes here: the file's own is already applied.
  const requestTurns = params.rotate % 180 === 90;
  const shownW = video.rotation % 180 === 90 ? sourceH : sourceW;
  const shownH = video.rotation % 180 === 90 ? sourceW : sourceH;
  let w = requestTurns ? shownH : shownW;
  let h = requestTurns ? shownW : shownH;
  const filters: string[] = [];
  const toneMapped = HDR_TRANSFERS.has(video.colorTransfer ?? '');
  if (toneMapped) filters.push(...TONE_MAP);
  if (params.rotate === 90) filters.push('transpose=clock');
  if (params.rotate === 270) filters.push('transpose=cclock');
  if (params.rotate === 180) filters.push('hflip', 'vflip');

  const resize = params.resize;
  if (resize !== undefined) {
    const scales: number[] = [];
    if (resize.width !== undefined) scales.push(resize.width / w);
    if (resize.height !== undefined) scales.push(resize.height / h);
    let scale = resize.mode === 'fit' ? Math.max(...scales) : Math.min(...scales);
    if (!resize.upscale) scale = Math.min(scale, 1);
    if (resize.mode === 'fit' && resize.width !== undefined && resize.height !== undefined) {
      const boxW = evenDown(resize.upscale ? resize.width : Math.min(resize.width, w));
      const boxH = evenDown(resize.upscale ? resize.height : Math.min(resize.height, h));
      const coverW = Math.max(boxW, Math.ceil(w * scale));
      const coverH = Math.max(boxH, Math.ceil(h * scale));
      filters.push(`scale=${coverW}:${coverH}:flags=lanczos`, `crop=${boxW}:${boxH}`);
      w = boxW;
      h = boxH;
    } else {
      const outW = even(w * scale);
      const outH = even(h * scale);
      filters.push(`scale=${outW}:${outH}:flags=lanczos`);
      w = outW;
      h = outH;
    }
  } else if (w % 2 !== 0 || h % 2 !== 0) {
    // Odd sizes: drop the last column or row rather than resample the whole picture.
    filters.push(`crop=${evenDown(w)}:${evenDown(h)}:0:0`);
    w = evenDown(w);
    h = evenDown(h);
  }
  filters.push('setsar=1');
  if (params.fps !== undefined) filters.push(`fps=${params.fps}`);
  return { width: w, height: h, filters, toneMapped };
}
