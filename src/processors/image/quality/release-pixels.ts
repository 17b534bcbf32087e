/**
 * Gives the memory of a dropped decode back before the next large allocation. sharp hands decoded pixels
 * to JavaScript as Buffers whose memory lives outside the JS heap and is freed only when the garbage
 * collector finds them unreachable, which V8 does when it sees fit: a 49 MP reference (147 MB) or a decoded
 * output that had already been cut into its mosaic was often still held while the output was encoded,
 * which is when the encoder needs its own copy (a 49 MP PNG to JPEG peaked 604 MB in one run, 453 MB in
 * the next). A full collection of this process's small heap takes tens of milliseconds, against seconds
 * for the decode and encode of an image this large, so it runs only after decodes of at least
 * RELEASE_BYTES; the free itself happens in a finalizer a turn of the event loop later.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Decodes smaller than this (about 10 MP of RGB) are left to V8's own timing. */
export const RELEASE_BYTES = 32 * 1024 * 1024;

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Collects garbage once `droppedBytes` of decoded pixels have become unreachable, and lets them be freed. */
export async function releasePixels(droppedBytes: number): Promise<void> {
  if (droppedBytes < RELEASE_BYTES) return;
  collect();
  await new Promise((resolve) => setImmediate(resolve));
}
