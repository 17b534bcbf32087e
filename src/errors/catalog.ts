/**
 * The one error catalog. Every error the service returns is a PressoError with a stable code, an HTTP
 * status and a public message; the `cause` carries the detail that is logged and never sent.
 */

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
  readonly code: string;
  readonly statusCode: number;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: string, statusCode: number, message: string, options: PressoErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.statusCode = statusCode;
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
    super('BAD_REQUEST', 400, message, options);
  }
}

export class UnauthorizedError extends PressoError {
  constructor(message: string) {
    super('UNAUTHORIZED', 401, message);
  }
}

export class InsecureTransportError extends PressoError {
  constructor() {
    super('HTTPS_REQUIRED', 403, 'HTTPS is required; plain HTTP requests are not processed.');
  }
}

export class NotFoundError extends PressoError {
  constructor(message = 'Not found.') {
    super('NOT_FOUND', 404, message);
  }
}

export class GoneError extends PressoError {
  constructor(message: string) {
    super('GONE', 410, message);
  }
}

export class PayloadTooLargeError extends PressoError {
  constructor(maxBytes: number) {
    super('PAYLOAD_TOO_LARGE', 413, `The input is larger than the maximum of ${maxBytes} bytes.`);
  }
}

export class UnsupportedMediaError extends PressoError {
  constructor(message: string) {
    super('UNSUPPORTED_MEDIA', 415, message);
  }
}

export class ValidationError extends PressoError {
  constructor(errors: FieldError[], message = 'The request parameters are invalid.') {
    super('VALIDATION_FAILED', 422, message, { errors });
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}

export class InvalidJsonError extends PressoError {
  constructor(field?: string) {
    const message = 'The incoming body does not contain valid JSON data.';
    super('INVALID_JSON', 422, message, { errors: [{ field: field ?? 'body', message }] });
  }
}

/** The input parsed as its detected kind but its content is broken (truncated, corrupt). */
export class UnprocessableInputError extends PressoError {
  constructor(message: string, cause?: unknown) {
    super('INPUT_UNPROCESSABLE', 422, message, { cause });
  }
}

export class RateLimitedError extends PressoError {
  constructor(retryAfterSeconds: number) {
    super('RATE_LIMITED', 429, `Rate limit exceeded. Retry in ${retryAfterSeconds} seconds.`, {
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }
}

/** The fetch source or an external store failed; the message names which and why. */
export class UpstreamError extends PressoError {
  constructor(message: string, cause?: unknown) {
    super('UPSTREAM_FAILED', 502, message, { cause });
  }
}

export class UnavailableError extends PressoError {
  constructor(message: string, retryAfterSeconds = 5) {
    super('UNAVAILABLE', 503, message, { headers: { 'retry-after': String(retryAfterSeconds) } });
  }
}

export class InternalError extends PressoError {
  constructor(cause?: unknown) {
    super('INTERNAL', 500, 'An internal error occurred. Quote the id when contacting support.', { cause });
  }
}

/** A processor needs an external program the server does not have; an operator must install it. */
export class ToolMissingError extends PressoError {
  constructor(tool: string, cause?: unknown) {
    super('TOOL_MISSING', 500, `${tool} is not installed on this server.`, { cause });
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

/** Rebuilds an error stored on a failed job, so a waiting synchronous request can answer with it. */
export function fromRecord(record: ErrorRecord): PressoError {
  return new PressoError(record.code, record.status, record.message, { errors: record.errors });
}
