/**
 * Gives the memory of a dropped decode back before the next large allocation. sharp hands decoded pixels
 * to JavaScript as Buffers whose memory lives outside the JS heap and is freed only when the garbage
 * collector finds them unreachable, which V8 does when it sees fit: a 49 MP reference (147 MB) or a decoded
 * output that had already been cut into its mosaic was often still held while the output was encoded,
 * which is when the encoder needs its own copy (a 49 MP PNG to JPEG peaked 604 MB in one run, 453 MB in
 * the next). A full collection of this process's small heap takes tens of milliseconds, against seconds
 * for the decode and encode of an image this large, so it runs only for decodes of at least RELEASE_BYTES.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Decodes smaller than this (about 10 MP of RGB) are left to V8's own timing. */
export const RELEASE_BYTES = 32 * 1024 * 1024;

/** Longest wait for a collected decode's finalizer (it runs a turn or two of the event loop after). */
const MAX_WAIT_MS = 200;

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const collected = new FinalizationRegistry<() => void>((resolve) => resolve());

/** A decode its holder is about to drop: its size, and a promise kept once it has been collected. */
export interface DroppedPixels {
  bytes: number;
  collected: Promise<void>;
}

/** Watches `pixels` (a decode about to become unreachable) so `releasePixels` can wait for its collection. */
export function watchPixels(pixels: ArrayBufferView): DroppedPixels {
  const { promise, resolve } = Promise.withResolvers<void>();
  if (pixels.byteLength >= RELEASE_BYTES) collected.register(pixels.buffer, resolve);
  return { bytes: pixels.byteLength, collected: promise };
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Once the caller holds no reference to the watched decode: collects garbage and waits until the decode has
 * been collected (at most MAX_WAIT_MS, should something still hold it), then one more turn of the event loop
 * for the finalizer that frees its memory.
 */
export async function releasePixels(dropped: DroppedPixels): Promise<void> {
  if (dropped.bytes < RELEASE_BYTES) return;
  collect();
  await Promise.race([dropped.collected, delay(MAX_WAIT_MS)]);
  await delay(1);
}
