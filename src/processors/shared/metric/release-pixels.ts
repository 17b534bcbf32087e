/**
 * Gives the memory of a dropped decode back before the next large allocation. sharp hands decoded pixels
 * to JavaScript as Buffers whose memory lives outside the JS heap and is freed only when the garbage
 * collector finds them unreachable, which V8 does when it sees fit: a 49 MP reference (147 MB) or a decoded
 * output that had already been cut into its mosaic was often still held while the output was encoded,
 * which is when the encoder needs its own copy (a 49 MP PNG to JPEG peaked 604 MB in one run, 453 MB in
 * the next). A full collection of this process's small heap takes tens of milliseconds, against seconds
 * for the decode and encode of an image this large, so it runs only for decodes of at least RELEASE_BYTES.
 *
 * Once the decode is gone, one more collection of the memory-reducing kind (V8's `last-resort`) gives back
 * the heap's slack too: the young generation grows (up to 2 × 64 MB semi-spaces on this machine) while a
 * search allocates and keeps its pages, which a regular collection does not return. In `presso serve` the
 * server stood at 190-200 MB before the 49 MP JPEG encode with a regular collection and at 140-150 MB with
 * this one, and the request peaked 479 → 439 MB (PNG output 488 → 419 MB), for ~0.1 s more CPU.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Decodes smaller than this (about 10 MP of RGB) are left to V8's own timing. */
export const RELEASE_BYTES = 32 * 1024 * 1024;

/**
 * Collections tried, each followed by up to COLLECTION_TURNS turns of the event loop for the decode to be
 * found dead: in `presso serve` the first collection, made as soon as the decode is dropped, still found it
 * reachable in half the runs of a 49 MP PNG to JPEG (something of the decode's own promise, it seems, let go
 * a turn later), and the second collected it. Counted in turns, not milliseconds: the finalizer runs as a
 * task of the loop, so on a busy machine a timed wait ran out before it did (the memory test then saw
 * 35 MB still held), while a turn-counted wait gives it the same chances whatever the load.
 */
const COLLECTIONS = 4;
const COLLECTION_TURNS = 20;

setFlagsFromString('--expose-gc');
/** V8's `gc` extension: a major collection, or with `flavor: 'last-resort'` the memory-reducing one. */
const collect = runInNewContext('gc') as (options?: { type: 'major'; flavor: 'last-resort' }) => void;
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

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Once the caller holds no reference to the watched decode: collects garbage until the decode has been
 * collected (COLLECTIONS at most, should something still hold it), waits one more turn of the event loop
 * for the finalizer that frees its memory, then shrinks the heap (young generation included) to its use.
 */
export async function releasePixels(dropped: DroppedPixels): Promise<void> {
  if (dropped.bytes < RELEASE_BYTES) return;
  let gone = false;
  void dropped.collected.then(() => {
    gone = true;
  });
  for (let attempt = 0; attempt < COLLECTIONS && !gone; attempt++) {
    collect();
    for (let turns = 0; turns < COLLECTION_TURNS && !gone; turns++) await turn();
  }
  // One more turn for the finalizer that frees the decode's memory.
  await turn();
  collect({ type: 'major', flavor: 'last-resort' });
}
