/**
 * What a multipart parsing failure means for the client. busboy and its dicer report a malformed body
 * (no boundary, the boundary never found, a part cut short, a missing CRLF) as plain `Error`s, and
 * @fastify/multipart reports its limits as Fastify errors with a code; left alone both became a 500.
 */
import {
  BadRequestError,
  InvalidJsonError,
  MalformedMultipartError,
  PayloadTooLargeError,
  PressoError,
} from '../errors/catalog.ts';

export interface MultipartLimits {
  maxInputBytes: number;
  parts: number;
}

/** The catalogued error for a failure while reading the parts; anything else passes through unchanged. */
export function toMultipartError(error: unknown, limits: MultipartLimits): unknown {
  if (error instanceof PressoError || !(error instanceof Error)) return error;
  switch ((error as { code?: unknown }).code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new PayloadTooLargeError(limits.maxInputBytes);
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new MalformedMultipartError(
        new Error(`it has more than the ${limits.parts} parts an upload may have`),
      );
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return new InvalidJsonError('data');
    case 'FST_PROTO_VIOLATION':
      return new BadRequestError('A form field name is not allowed.', { cause: error });
    case 'FST_MP_PREMATURE_CLOSE':
      return new MalformedMultipartError(new Error('the body ended before its closing boundary'));
  }
  // Exactly Error: the parser's own reports. System errors (a full disk) carry a code and TypeErrors
  // are bugs; both stay what they are.
  if (Object.getPrototypeOf(error) === Error.prototype && (error as { code?: unknown }).code === undefined) {
    return new MalformedMultipartError(error);
  }
  return error;
}
