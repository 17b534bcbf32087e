/**
 * The one error catalog. `ERRORS` defines every code the service can return, once, with its HTTP
 * status and default public message; PressoError can only be built from one of these codes, so no
 * code or status is minted anywhere else (test/errors/catalog.test.ts pins the set and checks that
 * docs/api.md documents each). The `cause` carries the detail that is logged and never sent.
 */

interface CatalogEntry {
  status: number;
  /** The public message when the thrower gives none; many throwers give a more precise one. */
  message: string;
}

export const ERRORS = {
  BAD_REQUEST: { status: 400, message: 'The request is malformed.' },
  MALFORMED_MULTIPART: { status: 400, message: 'The multipart body is malformed.' },
  UNAUTHORIZED: { status: 401, message: 'An API key is required (HTTP Basic or Bearer).' },
  HTTPS_REQUIRED: { status: 403, message: 'HTTPS is required; plain HTTP requests are not processed.' },
  FORBIDDEN: { status: 403, message: 'This action is not allowed for this user or key.' },
  ACCOUNT_DISABLED: { status: 403, message: 'This account is disabled; contact the operator.' },
  CSRF_FAILED: {
    status: 403,
    message: 'The X-CSRF-Token header is missing or wrong, or the Origin is not this service.',
  },
  NOT_FOUND: { status: 404, message: 'Not found.' },
  CONFLICT: { status: 409, message: 'The request conflicts with the current state.' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time.' },
  GONE: { status: 410, message: 'This download link has expired.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  URI_TOO_LONG: { status: 414, message: 'The request URL is too long.' },
  UNSUPPORTED_CONTENT_TYPE: { status: 415, message: 'This Content-Type is not accepted here.' },
  UNSUPPORTED_MEDIA: { status: 415, message: 'This file type is not supported.' },
  RANGE_NOT_SATISFIABLE: { status: 416, message: 'The requested range is outside the file.' },
  VALIDATION_FAILED: { status: 422, message: 'The request parameters are invalid.' },
  INVALID_JSON: { status: 422, message: 'The incoming body does not contain valid JSON data.' },
  INPUT_UNPROCESSABLE: { status: 422, message: 'The input could not be processed.' },
  RATE_LIMITED: { status: 429, message: 'Rate limit exceeded.' },
  TOO_MANY_UPLOADS: { status: 429, message: 'Too many uploads in progress for this API key.' },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request headers are too large.' },
  INTERNAL: { status: 500, message: 'An internal error occurred. Quote the id when contacting support.' },
  // 422, not 5xx: the request is valid but this server can never carry it out until an operator installs
  // the program, so a client must not retry it as it would a transient server fault (issue 10).
  TOOL_MISSING: { status: 422, message: 'A program this file needs is not installed on this server.' },
  UPSTREAM_FAILED: { status: 502, message: 'The source could not be fetched.' },
  STORE_WRITE_FAILED: { status: 502, message: 'The output could not be written to the external store.' },
  UNAVAILABLE: { status: 503, message: 'The service is unavailable; retry later.' },
  INSUFFICIENT_STORAGE: { status: 507, message: 'The server is out of storage space; retry later.' },
} as const satisfies Record<string, CatalogEntry>;

export type ErrorCode = keyof typeof ERRORS;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERRORS, code);
}

export interface FieldError {
  field: string;
  message: string;
}

export interface PressoErrorOptions {
  cause?: unknown;
  errors?: FieldError[];
  headers?: Record<string, string>;
}

export class PressoError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string = ERRORS[code].message, options: PressoErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.statusCode = ERRORS[code].status;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }

  /** The serialisable part of the error, as stored on a failed job. */
  toRecord(): ErrorRecord {
    return { code: this.code, status: this.statusCode, message: this.message, errors: this.errors };
  }
}

export interface ErrorRecord {
  code: string;
  status: number;
  message: string;
  errors?: FieldError[] | undefined;
}

export class BadRequestError extends PressoError {
  constructor(message: string, options?: PressoErrorOptions) {
    super('BAD_REQUEST', message, options);
  }
}

/** A multipart body the parser could not read (bad boundary, truncated part, missing CRLF). */
export class MalformedMultipartError extends PressoError {
  constructor(cause: unknown) {
    const detail = cause instanceof Error ? `: ${cause.message.replace(/\.$/, '')}` : '';
    super('MALFORMED_MULTIPART', `The multipart body is malformed${detail}.`, { cause });
  }
}

export class UnauthorizedError extends PressoError {
  constructor(message: string) {
    super('UNAUTHORIZED', message);
  }
}

export class InsecureTransportError extends PressoError {
  constructor() {
    super('HTTPS_REQUIRED');
  }
}

/** The caller is known but its role or key scope does not allow the action. */
export class ForbiddenError extends PressoError {
  constructor(message?: string) {
    super('FORBIDDEN', message);
  }
}

export class AccountDisabledError extends PressoError {
  constructor() {
    super('ACCOUNT_DISABLED');
  }
}

/** A state change made with a session cookie lacks the session's CSRF token or came from another origin. */
export class CsrfError extends PressoError {
  constructor(message?: string) {
    super('CSRF_FAILED', message);
  }
}

export class ConflictError extends PressoError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}

export class NotFoundError extends PressoError {
  constructor(message?: string) {
    super('NOT_FOUND', message);
  }
}

/** The headers or the body arrived too slowly (see the PRESSO_HEADERS_TIMEOUT and PRESSO_BODY_* limits). */
export class RequestTimeoutError extends PressoError {
  constructor(message?: string) {
    super('REQUEST_TIMEOUT', message);
  }
}

export class GoneError extends PressoError {
  constructor(message?: string) {
    super('GONE', message);
  }
}

export class PayloadTooLargeError extends PressoError {
  /** `what`: the input (default) or a named part of the request, e.g. 'The data field'. */
  constructor(maxBytes: number, what = 'The input') {
    super('PAYLOAD_TOO_LARGE', `${what} is larger than the maximum of ${maxBytes} bytes.`);
  }
}

export class UriTooLongError extends PressoError {
  constructor() {
    super('URI_TOO_LONG');
  }
}

export class UnsupportedContentTypeError extends PressoError {
  /** `expected`: the media type this route accepts. */
  constructor(expected?: string) {
    super(
      'UNSUPPORTED_CONTENT_TYPE',
      expected ? `Content-Type must be ${expected}.` : ERRORS.UNSUPPORTED_CONTENT_TYPE.message,
    );
  }
}

export class UnsupportedMediaError extends PressoError {
  constructor(message: string) {
    super('UNSUPPORTED_MEDIA', message);
  }
}

export class RangeNotSatisfiableError extends PressoError {
  constructor(size: number) {
    super('RANGE_NOT_SATISFIABLE', undefined, { headers: { 'content-range': `bytes */${size}` } });
  }
}

export class ValidationError extends PressoError {
  constructor(errors: FieldError[], message?: string) {
    super('VALIDATION_FAILED', message, { errors });
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}

export class InvalidJsonError extends PressoError {
  constructor(field?: string) {
    const message = ERRORS.INVALID_JSON.message;
    super('INVALID_JSON', message, { errors: [{ field: field ?? 'body', message }] });
  }
}

/** The input parsed as its detected kind but its content is broken (truncated, corrupt). */
export class UnprocessableInputError extends PressoError {
  constructor(message: string, cause?: unknown) {
    super('INPUT_UNPROCESSABLE', message, { cause });
  }
}

export class RateLimitedError extends PressoError {
  constructor(retryAfterSeconds: number) {
    super('RATE_LIMITED', `Rate limit exceeded. Retry in ${retryAfterSeconds} seconds.`, {
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }
}

/** One API key has as many uploads in progress as the server allows; the next waits for one to end. */
export class TooManyUploadsError extends PressoError {
  constructor(limit: number) {
    super('TOO_MANY_UPLOADS', `At most ${limit} uploads may be in progress per API key; retry shortly.`, {
      headers: { 'retry-after': '1' },
    });
  }
}

export class HeadersTooLargeError extends PressoError {
  constructor() {
    super('HEADERS_TOO_LARGE');
  }
}

/** The fetch source or an external store failed; the message names which and why. */
export class UpstreamError extends PressoError {
  constructor(message: string, cause?: unknown) {
    super('UPSTREAM_FAILED', message, { cause });
  }
}

/** The caller's external store refused or failed the write; the message names the store and why, never a secret. */
export class StoreWriteError extends PressoError {
  constructor(message: string, cause?: unknown) {
    super('STORE_WRITE_FAILED', message, { cause });
  }
}

export class UnavailableError extends PressoError {
  constructor(message: string, retryAfterSeconds = 5) {
    super('UNAVAILABLE', message, { headers: { 'retry-after': String(retryAfterSeconds) } });
  }
}

/** The disk (or store) holding inputs and outputs is full; the cause (ENOSPC, ...) is logged. */
export class InsufficientStorageError extends PressoError {
  constructor(cause?: unknown) {
    super('INSUFFICIENT_STORAGE', undefined, { cause });
  }
}

export class InternalError extends PressoError {
  constructor(cause?: unknown) {
    super('INTERNAL', undefined, { cause });
  }
}

/** A processor needs an external program the server does not have; an operator must install it. */
export class ToolMissingError extends PressoError {
  constructor(tool: string, cause?: unknown) {
    super('TOOL_MISSING', `${tool} is not installed on this server.`, { cause });
  }
}

/** A start-up configuration error; it names the environment variable at fault. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Anything thrown that is not a PressoError becomes a 500 whose cause is logged, never returned. */
export function toPressoError(error: unknown): PressoError {
  return error instanceof PressoError ? error : new InternalError(error);
}

/**
 * Rebuilds an error stored on a failed job, so a waiting synchronous request can answer with it. The
 * status comes from the catalog; a code the catalog no longer has becomes a 500 with the record logged.
 */
export function fromRecord(record: ErrorRecord): PressoError {
  if (!isErrorCode(record.code))
    return new InternalError(new Error(`unknown stored error ${JSON.stringify(record)}`));
  return new PressoError(record.code, record.message, record.errors ? { errors: record.errors } : {});
}
