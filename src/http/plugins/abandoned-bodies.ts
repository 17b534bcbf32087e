/**
 * A request body whose connection has closed is ended as aborted, so whatever reads it fails at once.
 *
 * Node aborts a body when its connection closes only while the answer is still pending. Once an answer went
 * out before the body was read to its end (a 408 for a stalled body: Node then closes the connection), the
 * body is left neither ended nor destroyed, and its reader (the multipart parser, a file being written from
 * it) would wait forever: the upload's handler never ended, and its partial file stayed open and on disk.
 */
import type { FastifyInstance } from 'fastify';
import { hasBody } from './body-timeouts.ts';

/** The error Node itself gives a body cut by its client (`ECONNRESET`, "aborted"). */
function abortedError(): Error {
  return Object.assign(new Error('aborted: the connection closed before the request body was received'), {
    code: 'ECONNRESET',
  });
}

export function registerAbandonedBodies(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const raw = request.raw;
    if (raw.complete || !hasBody(raw)) return;
    const socket = raw.socket;
    const abandon = () => {
      if (!raw.complete && !raw.destroyed) raw.destroy(abortedError());
    };
    const forget = () => socket.off('close', abandon);
    socket.once('close', abandon);
    // A keep-alive connection carries more requests: the listener goes with this body.
    raw.once('end', forget);
    raw.once('close', forget);
  });
}
