/**
 * Time-outs for a request body that arrives too slowly: no byte for `idleMs`, or fewer than
 * `minBytesPerSecond` over an `idleMs` window. Without them one client trickling a body ties up a
 * connection, an upload slot and a working directory for as long as it likes.
 *
 * Progress is read from the socket's byte count (plaintext bytes, also under TLS) once per window, so
 * a request costs one timer and no stream listener (a 'data' listener would switch the body into
 * flowing mode under the route). A window in which the service itself was not reading (bytes waiting
 * in the request's buffer: a slow disk, the authentication lookup) does not count against the client.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { RequestTimeoutError } from '../../errors/catalog.ts';

export interface BodyTimeouts {
  idleMs: number;
  /** 0: only the idle time-out applies. */
  minBytesPerSecond: number;
}

/** Whether the request announces a body (a length above 0, or chunked). */
export function hasBody(raw: IncomingMessage): boolean {
  const length = Number(raw.headers['content-length'] ?? 0);
  return raw.headers['transfer-encoding'] !== undefined || length > 0;
}

/** Why the last window is too slow, or undefined while the client keeps pace. */
function tooSlow(received: number, options: BodyTimeouts): string | undefined {
  const seconds = options.idleMs / 1000;
  if (received === 0) return `The request body stalled for more than ${seconds} seconds.`;
  const minimum = options.minBytesPerSecond * seconds;
  if (received < minimum) {
    return `The request body arrived slower than ${options.minBytesPerSecond} bytes per second.`;
  }
  return undefined;
}

function watch(raw: IncomingMessage, reply: FastifyReply, options: BodyTimeouts): void {
  const socket = raw.socket;
  let last = socket.bytesRead;
  const timer = setInterval(() => {
    if (raw.complete || socket.destroyed) {
      clearInterval(timer);
      return;
    }
    const received = socket.bytesRead - last;
    last = socket.bytesRead;
    if (raw.readableLength > 0) return;
    const reason = tooSlow(received, options);
    if (reason === undefined) return;
    clearInterval(timer);
    if (reply.sent || reply.raw.headersSent) {
      // Answered already (an early refusal draining the rest): nothing left to say, only to stop.
      socket.destroy();
      return;
    }
    // Node closes the connection once this answer is written; the route then sees the body abort.
    reply.header('connection', 'close');
    reply.send(new RequestTimeoutError(reason));
  }, options.idleMs);
  timer.unref();
  raw.once('close', () => clearInterval(timer));
}

export function registerBodyTimeouts(app: FastifyInstance, options: BodyTimeouts): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!request.raw.complete && hasBody(request.raw)) watch(request.raw, reply, options);
  });
}
