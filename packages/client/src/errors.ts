/**
 * Typed errors. Every error the API answers keeps its body (`status`, `id`, `message`, `errors[]`), so a
 * caller can branch on `status`, show the field errors, or quote `id` to support; nothing is a bare
 * `Error('422')`.
 */

/** One failing parameter of a 422 answer. */
export interface FieldError {
  field: string;
  message: string;
}

/** The error body of the API: `{success: false, status, id, message, errors?}`. */
export interface ErrorBody {
  success: false;
  status: number;
  id: string;
  message: string;
  errors?: FieldError[];
}

/** Base class: anything this library throws on purpose. */
export class PressoClientError extends Error {
  override name = 'PressoClientError';
}

/** The API answered with an error status. */
export class PressoApiError extends PressoClientError {
  override name = 'PressoApiError';
  readonly status: number;
  /** The request id (equals the X-Request-Id header): quote it to support. */
  readonly id: string;
  readonly errors: FieldError[];
  readonly body: ErrorBody;
  readonly headers: Headers;

  constructor(body: ErrorBody, headers: Headers) {
    super(`${body.status} ${body.message}${fieldSummary(body.errors)}`);
    this.status = body.status;
    this.id = body.id;
    this.errors = body.errors ?? [];
    this.body = body;
    this.headers = headers;
  }
}

function fieldSummary(errors: FieldError[] | undefined): string {
  if (!errors || errors.length === 0) return '';
  return ` (${errors.map((e) => `${e.field}: ${e.message}`).join('; ')})`;
}

/** 422: invalid body or parameters; `errors` lists every failing field. */
export class PressoValidationError extends PressoApiError {
  override name = 'PressoValidationError';
}

/** 401: the key is missing, malformed or revoked. */
export class PressoAuthenticationError extends PressoApiError {
  override name = 'PressoAuthenticationError';
}

/** 429, after the client's own retries (if any) ran out. */
export class PressoRateLimitError extends PressoApiError {
  override name = 'PressoRateLimitError';
  /** Seconds the server asked to wait (Retry-After). */
  readonly retryAfterSeconds: number;

  constructor(body: ErrorBody, headers: Headers) {
    super(body, headers);
    this.retryAfterSeconds = retryAfterSeconds(headers) ?? 1;
  }
}

/** The job ended `failed`; `record` is its status record (`success: false`, `message`). */
export class PressoJobFailedError extends PressoClientError {
  override name = 'PressoJobFailedError';
  readonly jobId: string;
  readonly record: { id: string; status: 'failed'; success?: false; message?: string };

  constructor(record: { id: string; status: 'failed'; success?: false; message?: string }) {
    super(`Job ${record.id} failed: ${record.message ?? 'no message'}`);
    this.jobId = record.id;
    this.record = record;
  }
}

/** The server could not be reached (after retries, for a request that may be retried). */
export class PressoNetworkError extends PressoClientError {
  override name = 'PressoNetworkError';
}

/** A downloaded file's SHA-1 differs from the result's `output.sha1`. */
export class PressoIntegrityError extends PressoClientError {
  override name = 'PressoIntegrityError';
}

/** The answer's error class by status. */
export function apiError(body: ErrorBody, headers: Headers): PressoApiError {
  if (body.status === 422) return new PressoValidationError(body, headers);
  if (body.status === 401) return new PressoAuthenticationError(body, headers);
  if (body.status === 429) return new PressoRateLimitError(body, headers);
  return new PressoApiError(body, headers);
}

/** `Retry-After` in seconds (delta form, or an HTTP date), or undefined. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d{1,9}$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
