/**
 * Answers for requests that never reach a route: a connection-level parse failure or time-out
 * (node's `clientError`: header over the size limit, headers not received in time, bytes that are not
 * HTTP) and router refusals (a path segment over the router's length limit, a malformed URL encoding).
 * Each answer is the documented error body, so a client sees one error shape whatever failed.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  BadRequestError,
  HeadersTooLargeError,
  type PressoError,
  RequestTimeoutError,
  UriTooLongError,
} from '../errors/catalog.ts';
import { errorBody } from './error-handler.ts';

/** Sent on every response, errors included: a download must never be sniffed into HTML by a browser. */
export const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff' } as const;

function fromClientError(error: NodeJS.ErrnoException, headersTimeoutMs: number): PressoError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return new HeadersTooLargeError();
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new RequestTimeoutError(
      `The request headers were not received within ${headersTimeoutMs / 1000} seconds.`,
    );
  }
  return new BadRequestError('The request is not valid HTTP/1.1.', { cause: error });
}

/**
 * node's `clientError` listener. The answer is ended, not followed by destroy(): on a TLS socket a
 * destroy right after the write discards the encrypted bytes still queued, and the client got nothing
 * (the audit's "a header over 16 KB gets no response").
 */
export function makeClientErrorHandler(headersTimeoutMs: number) {
  // node's parser keeps its data listener after an error, so bytes that follow raise the error again:
  // the first one is answered, the repeats must not cut that answer short.
  const answered = new WeakSet<Socket>();
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
    answered.add(socket);
    const presso = fromClientError(error, headersTimeoutMs);
    const id = randomUUID();
    const body = JSON.stringify(errorBody(presso, id));
    const head = [
      `HTTP/1.1 ${presso.statusCode} ${STATUS_CODES[presso.statusCode]}`,
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
      `x-request-id: ${id}`,
      ...Object.entries(SECURITY_HEADERS).map(([name, value]) => `${name}: ${value}`),
      'connection: close',
    ].join('\r\n');
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    // The parser stopped: whatever else the client sends is discarded until the answer is flushed.
    socket.on('data', () => {});
    socket.end(`${head}\r\n\r\n${body}`);
    // A client that never reads must not keep the socket open forever.
    socket.setTimeout(5_000, () => socket.destroy());
  };
}

/** Fastify's `frameworkErrors`: router refusals in the catalog shape instead of Fastify's own. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const presso =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new UriTooLongError()
      : new BadRequestError('The request URL is not valid.', { cause: error });
  reply
    .code(presso.statusCode)
    .headers({ ...SECURITY_HEADERS, 'x-request-id': request.id })
    .send(errorBody(presso, request.id));
}
