/**
 * The native SSIMULACRA 2 (native/ssimulacra2, a Node-API addon built by scripts/setup.sh): the same
 * per-scale statistics as ssimulacra2.ts, bit for bit (both compute in float32 as the reference does, the
 * addon four pixels per vector instruction), on libuv's thread pool so the event loop stays free while an
 * image is scored (docs/benchmarks.md has the CPU per megapixel of each). What C's maths library would not
 * give bit for bit is computed here and handed over: the sRGB → linear tables (V8's `**`), the blur's
 * constants (V8's trigonometry), and the final weighted sum and polynomial (`combine`, cheap).
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type PreparedReference, preparedBackgrounds, servingBackground } from './prepared-reference.ts';
import { BLUR_CONSTANTS } from './recursive-gaussian.ts';
import { backgroundsOf, combine, linearTable, type RgbImage, type ScaleScores } from './ssimulacra2.ts';

interface Addon {
  scaleStats(
    reference: Uint8Array,
    referenceChannels: number,
    referenceLinear: Float32Array,
    distorted: Uint8Array,
    distortedChannels: number,
    distortedLinear: Float32Array,
    width: number,
    height: number,
    blur: Float64Array,
  ): Promise<Float64Array>;
  /** The cube root the metric uses (float32), exposed for its test. */
  cbrt(values: Float32Array): Float32Array;
  /** A prepared reference (native/ssimulacra2/src/reference_binding.cc): an opaque handle. */
  prepareReference(
    reference: Uint8Array,
    channels: number,
    linear: Float32Array,
    width: number,
    height: number,
    blur: Float64Array,
  ): Promise<NativeHandle>;
  /** scaleStats(reference, …, distorted, …) of the prepared reference's image: the same numbers. */
  scaleStatsAgainst(
    handle: NativeHandle,
    distorted: Uint8Array,
    channels: number,
    linear: Float32Array,
  ): Promise<Float64Array>;
  releaseReference(handle: NativeHandle): void;
  referenceBytes(handle: NativeHandle): number;
  heldReferences(): number;
}

/** The addon's reference handle (an external: no properties). */
type NativeHandle = { readonly __nativeReference: unique symbol };

/** Where node-gyp puts the addon (gitignored; scripts/setup.sh builds it when missing or stale). */
export const ADDON_PATH = fileURLToPath(
  new URL('../../../../native/ssimulacra2/build/Release/ssimulacra2.node', import.meta.url),
);

/** Statistics per scale in the addon's result (metric.h: kStatsPerScale). */
export const STATS_PER_SCALE = 18;

function load(): { addon: Addon; error?: undefined } | { addon?: undefined; error: Error } {
  try {
    return { addon: createRequire(import.meta.url)(ADDON_PATH) as Addon };
  } catch (cause) {
    return { error: cause instanceof Error ? cause : new Error(String(cause)) };
  }
}

const loaded = load();

/** Why the addon could not be loaded, or undefined when it is loaded. */
export function nativeSsimulacra2LoadError(): Error | undefined {
  return loaded.error;
}

/** The addon's per-scale statistics of one pair (for callers that merge them, e.g. banded scores). */
export function nativeScaleStats(...args: Parameters<Addon['scaleStats']>): Promise<Float64Array> {
  const { addon, error } = loaded;
  if (addon === undefined) return Promise.reject(error);
  return addon.scaleStats(...args);
}

/** Prepared references whose planes the addon holds now (tests: a search leaves none). */
export function nativeHeldReferences(): number {
  const { addon, error } = loaded;
  if (addon === undefined) throw error;
  return addon.heldReferences();
}

/** The addon's cube root of each value (for its test against Math.cbrt); throws the load error. */
export function nativeCbrt(values: Float32Array): Float32Array {
  const { addon, error } = loaded;
  if (addon === undefined) throw error;
  return addon.cbrt(values);
}

/** The RGBA tables by background (256 KB each; two backgrounds are ever used), made on first use. */
const blendTables = new Map<number, Float32Array>();

function tableFor(channels: 3 | 4, background: number): Float32Array {
  if (channels === 3) return linearTable(3, background);
  let table = blendTables.get(background);
  if (table === undefined) {
    table = linearTable(4, background);
    blendTables.set(background, table);
  }
  return table;
}

function pixelsOf(image: RgbImage): Uint8Array {
  return image.data.subarray(0, image.width * image.height * image.channels);
}

function toScales(stats: Float64Array): ScaleScores[] {
  const scales: ScaleScores[] = [];
  for (let at = 0; at < stats.length; at += STATS_PER_SCALE) {
    scales.push({
      ssim: Array.from(stats.subarray(at, at + 6)),
      edge: Array.from(stats.subarray(at + 6, at + STATS_PER_SCALE)),
    });
  }
  return scales;
}

/**
 * SSIMULACRA 2 of `distorted` against `reference` by the addon: the same number as `ssimulacra2()` (`===`,
 * test/processors/image/ssimulacra2-native.test.ts). The two backgrounds of an image with alpha are scored
 * one after the other, not as two concurrent works: each holds ~75 bytes per pixel of float planes (180 MB
 * on the 2.4 MP scoring mosaic), as much as the TypeScript, and the image processor budgets its memory.
 * Throws the load error when the addon is not loaded.
 */
export async function ssimulacra2Native(reference: RgbImage, distorted: RgbImage): Promise<number> {
  const { addon, error } = loaded;
  if (addon === undefined) throw error;
  const scores: number[] = [];
  for (const background of backgroundsOf(reference, distorted)) {
    const stats = await addon.scaleStats(
      pixelsOf(reference),
      reference.channels,
      tableFor(reference.channels, background),
      pixelsOf(distorted),
      distorted.channels,
      tableFor(distorted.channels, background),
      reference.width,
      reference.height,
      BLUR_CONSTANTS,
    );
    scores.push(combine(toScales(stats)));
  }
  return Math.min(...scores);
}

/**
 * A prepared reference by the addon (prepared-reference.ts says what and why): one handle per prepared
 * background, prepared one after the other (each holds ~48 bytes per pixel). Throws the load error when
 * the addon is not loaded.
 */
export async function prepareReferenceNative(reference: RgbImage): Promise<PreparedReference> {
  const { addon, error } = loaded;
  if (addon === undefined) throw error;
  const { width, height, channels } = reference;
  const handles = new Map<number, NativeHandle>();
  const release = () => {
    for (const handle of handles.values()) addon.releaseReference(handle);
    handles.clear();
  };
  try {
    for (const background of preparedBackgrounds(channels)) {
      const table = tableFor(channels, background);
      const handle = await addon.prepareReference(
        pixelsOf(reference),
        channels,
        table,
        width,
        height,
        BLUR_CONSTANTS,
      );
      handles.set(background, handle);
    }
  } catch (cause) {
    release();
    throw cause;
  }
  const shape = { width, height, channels, data: new Uint8Array(0) };
  return {
    width,
    height,
    channels,
    async score(distorted) {
      const scores: number[] = [];
      for (const background of backgroundsOf(shape, distorted)) {
        const handle = handles.get(servingBackground(channels, background));
        if (handle === undefined) throw new Error('ssimulacra2 native: the prepared reference was released');
        const table = tableFor(distorted.channels, background);
        const stats = await addon.scaleStatsAgainst(handle, pixelsOf(distorted), distorted.channels, table);
        scores.push(combine(toScales(stats)));
      }
      return Math.min(...scores);
    },
    bytes: () => [...handles.values()].reduce((sum, handle) => sum + addon.referenceBytes(handle), 0),
    release,
  };
}
