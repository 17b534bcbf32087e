/**
 * Reading the rest of a body the service has refused (a file over the limit, too many uploads). A
 * client that sends its whole body before reading the answer (most do) would otherwise find the
 * connection reset under it and lose the answer. Up to `capBytes` are read and discarded, and then the
 * connection is closed; a body that ends within the cap leaves the connection usable for the next request.
 */
import type { IncomingMessage } from 'node:http';

/** Past this much unread body the connection is closed rather than drained: 16 MiB at 10 MB/s is ~2 s. */
export const DRAIN_CAP_BYTES = 16 * 1024 * 1024;

export function drainRequest(raw: IncomingMessage, capBytes = DRAIN_CAP_BYTES): void {
  if (raw.readableEnded || raw.destroyed) return;
  raw.unpipe();
  let drained = 0;
  raw.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > capBytes) raw.socket.destroy();
  });
  raw.resume();
}
