/**
 * The HTTP layer: Bearer auth, JSON in and out, typed errors, and retries that are safe. Any request is
 * sent again after a 429 (the server did nothing with it) once the rate-limit window frees capacity;
 * a request that changes nothing (GET) is also retried on network errors and on 5xx answers, with
 * exponential back-off and jitter, so many clients do not come back in step. Only `fetch`,
 * `AbortSignal`, `Headers` and timers: it runs in Node, browsers and edge runtimes alike.
 */
import { apiError, type ErrorBody, PressoNetworkError, retryAfterSeconds } from './errors.ts';
import type { RateLimitState } from './types.ts';

export type FetchFunction = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface RetryOptions {
  /** Attempts after the first (default 5). */
  retries?: number;
  /** First back-off step in ms (default 500); doubles each attempt up to `maxDelayMs`. */
  baseDelayMs?: number;
  /** Longest back-off step in ms (default 30 000). */
  maxDelayMs?: number;
}

/** What a retry waits for, reported to `onRetry` before the wait. */
export interface RetryInfo {
  method: string;
  path: string;
  attempt: number;
  delayMs: number;
  reason: 'rate-limited' | 'server-error' | 'network-error';
  status?: number;
  error?: unknown;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey?: string;
  fetch?: FetchFunction;
  retry?: RetryOptions;
  onRetry?: (info: RetryInfo) => void;
  /** Extra headers on every request (a browser refuses to set User-Agent; Node accepts it). */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  method?: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body (serialised here), or a body factory (called once per attempt). */
  json?: unknown;
  body?: () => {
    body: NonNullable<RequestInit['body']>;
    headers?: Record<string, string>;
    replayable: boolean;
  };
  signal?: AbortSignal | undefined;
  /** Whether the request may be sent again after a network error or a 5xx (default: GET and HEAD). */
  idempotent?: boolean;
  /** Answer the raw response for any 2xx (downloads); default parses JSON. */
  raw?: boolean;
  /** Send no API key (download links need none, and an external store's URL must never see it). */
  anonymous?: boolean;
}

export interface Answer<T> {
  status: number;
  headers: Headers;
  body: T;
}

const RETRIED_STATUSES = new Set([500, 502, 503, 504]);

/** Equal jitter: half the step, plus a random share of the other half. */
export function jittered(stepMs: number, random: () => number = Math.random): number {
  return Math.round(stepMs / 2 + random() * (stepMs / 2));
}

/** A timer that an AbortSignal cuts short (rejecting with the signal's reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function rateLimitState(headers: Headers): RateLimitState | undefined {
  const limit = headers.get('x-ratelimit-limit');
  const remaining = headers.get('x-ratelimit-remaining');
  const reset = headers.get('x-ratelimit-reset');
  if (limit === null || remaining === null || reset === null) return undefined;
  return { limit: Number(limit), remaining: Number(remaining), reset: Number(reset) };
}

export class Transport {
  readonly baseUrl: string;
  /** The X-RateLimit-* headers of the last answer that had them. */
  rateLimit: RateLimitState | undefined;
  readonly #options: TransportOptions;
  readonly #fetch: FetchFunction;

  constructor(options: TransportOptions) {
    this.#options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  url(path: string, query?: RequestOptions['query']): URL {
    const url = new URL(path.startsWith('http') ? path : `${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query ?? {}))
      if (value !== undefined) url.searchParams.set(name, String(value));
    return url;
  }

  async request<T>(path: string, options: RequestOptions = {}): Promise<Answer<T>> {
    const method = options.method ?? 'GET';
    const idempotent = options.idempotent ?? (method === 'GET' || method === 'HEAD');
    const { retries = 5, baseDelayMs = 500, maxDelayMs = 30_000 } = this.#options.retry ?? {};
    const url = this.url(path, options.query);
    for (let attempt = 1; ; attempt++) {
      const made = this.#body(options);
      let response: Response;
      try {
        response = await this.#fetch(url, {
          method,
          headers: this.#headers(made?.headers, options.anonymous),
          ...(made ? { body: made.body, duplex: 'half' } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        } as RequestInit);
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (!idempotent || attempt > retries)
          throw new PressoNetworkError(`${method} ${url.pathname}: ${describe(error)}`, { cause: error });
        const delayMs = jittered(Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)));
        this.#options.onRetry?.({ method, path, attempt, delayMs, reason: 'network-error', error });
        await sleep(delayMs, options.signal);
        continue;
      }
      this.rateLimit = rateLimitState(response.headers) ?? this.rateLimit;
      if (response.ok) {
        if (options.raw) return { status: response.status, headers: response.headers, body: response as T };
        const text = await response.text();
        return {
          status: response.status,
          headers: response.headers,
          body: (text ? JSON.parse(text) : undefined) as T,
        };
      }
      const replayable = made?.replayable ?? true;
      const retry = this.#retryDelay(response, attempt, {
        retries,
        baseDelayMs,
        maxDelayMs,
        idempotent,
        replayable,
      });
      if (retry === undefined) throw apiError(await errorBody(response), response.headers);
      await response.body?.cancel().catch(() => {});
      this.#options.onRetry?.({ method, path, attempt, status: response.status, ...retry });
      await sleep(retry.delayMs, options.signal);
    }
  }

  #retryDelay(
    response: Response,
    attempt: number,
    policy: Required<RetryOptions> & { idempotent: boolean; replayable: boolean },
  ): { delayMs: number; reason: RetryInfo['reason'] } | undefined {
    if (attempt > policy.retries || !policy.replayable) return undefined;
    if (response.status === 429) {
      // Wait for the window to free capacity (Retry-After, else X-RateLimit-Reset), plus a little jitter.
      const seconds = retryAfterSeconds(response.headers) ?? rateLimitState(response.headers)?.reset ?? 1;
      return {
        delayMs: seconds * 1000 + jittered(Math.min(1000, policy.baseDelayMs)),
        reason: 'rate-limited',
      };
    }
    if (policy.idempotent && RETRIED_STATUSES.has(response.status)) {
      const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      const asked = (retryAfterSeconds(response.headers) ?? 0) * 1000;
      return { delayMs: Math.max(asked, jittered(step)), reason: 'server-error' };
    }
    return undefined;
  }

  #headers(extra: Record<string, string> | undefined, anonymous = false): Headers {
    const headers = new Headers({ accept: 'application/json', ...this.#options.headers, ...extra });
    if (this.#options.apiKey && !anonymous) headers.set('authorization', `Bearer ${this.#options.apiKey}`);
    return headers;
  }

  #body(options: RequestOptions) {
    if (options.body) return options.body();
    if (options.json === undefined) return undefined;
    return {
      body: JSON.stringify(options.json),
      headers: { 'content-type': 'application/json' },
      replayable: true,
    };
  }
}

/** The answer's error body, or one made from the status when the body is not the API's JSON. */
async function errorBody(response: Response): Promise<ErrorBody> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as Partial<ErrorBody>;
    if (typeof parsed.message === 'string')
      return {
        ...parsed,
        success: false,
        status: parsed.status ?? response.status,
        id: parsed.id ?? '',
        message: parsed.message,
      };
  } catch {
    // not JSON: a proxy's page, for instance
  }
  return {
    success: false,
    status: response.status,
    id: response.headers.get('x-request-id') ?? '',
    message: text.slice(0, 200) || response.statusText || `HTTP ${response.status}`,
  };
}

function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return error instanceof Error ? `${error.message}${cause}` : String(error);
}
