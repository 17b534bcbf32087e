/**
 * The OutboundClient: downloads fetch sources and posts webhooks through one undici Agent whose
 * connector refuses private and special addresses (guarded-connector.ts). Redirects are followed here,
 * not by undici, so that each hop is a fresh request that goes through the connector again and
 * credentials and caller headers can be dropped when a hop leaves the origin they were given for.
 */
import { createHash } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { isIP } from 'node:net';
import { pipeline } from 'node:stream/promises';
import type { Agent, Dispatcher } from 'undici';
import { PayloadTooLargeError, PressoError, UpstreamError, ValidationError } from '../errors/catalog.ts';
import type { ParsedCidr } from './address-guard.ts';
import { addressRefusal, compileAllowList } from './address-guard.ts';
import { GuardedAgents } from './guarded-agents.ts';
import { AddressRefusedError, createGuardedConnector, unbracket } from './guarded-connector.ts';
import type {
  DownloadRequest,
  DownloadResult,
  OutboundClient,
  OutboundOptions,
  PostRequest,
  PostResult,
} from './outbound-client.ts';
import {
  defaultFetchHeaders,
  describeNetworkFailure,
  describeSource,
  fileNameFor,
  headerValue,
  normaliseHeaders,
  parseHttpUrl,
  takeCredentials,
  userAgent,
} from './request-parts.ts';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const URL_MESSAGE = 'must be an absolute http or https URL';

/** Thrown by the streaming step when the body passes the byte cap. */
class ByteCapExceeded extends Error {}

/** The agent and its request function, once undici is loaded. */
interface Http {
  agent: Agent;
  request: typeof import('undici').request;
}

export class GuardedOutboundClient implements OutboundClient {
  readonly #options: OutboundOptions;
  readonly #allow: ParsedCidr[];
  readonly #userAgent: string;
  #http: Promise<Http> | undefined;

  constructor(options: OutboundOptions) {
    this.#options = options;
    this.#allow = compileAllowList(options.allowCidrs);
    this.#userAgent = userAgent(options.serviceName, options.siteUrl);
  }

  /**
   * undici (about 110 modules) is loaded by the first outbound request, not at start-up: a worker without
   * fetches or webhooks, the CLI and most test processes never need it.
   */
  #client(): Promise<Http> {
    this.#http ??= import('undici').then((undici) => ({
      agent: new undici.Agent({
        connect: createGuardedConnector(undici.buildConnector, this.#allow, this.#options.connectTimeoutMs),
        // Time limits come from abort signals (whole transfer for downloads, per request for webhooks).
        headersTimeout: 0,
        bodyTimeout: 0,
      }),
      request: undici.request,
    }));
    return this.#http;
  }

  /** Node agents under the same guard and allow-list, for SDKs with an HTTP stack of their own (object stores). */
  agents(): GuardedAgents {
    return new GuardedAgents(this.#allow, this.#options.connectTimeoutMs);
  }

  async checkUrl(url: string, field: string): Promise<void> {
    const parsed = parseHttpUrl(url);
    if (!parsed) throw ValidationError.field(field, URL_MESSAGE);
    const host = unbracket(parsed.hostname);
    if (isIP(host) !== 0) {
      const reason = addressRefusal(host, this.#allow);
      if (reason !== undefined) throw refusedError(field, new AddressRefusedError(host, host, reason));
      return;
    }
    let addresses: Array<{ address: string }>;
    try {
      addresses = await dns.lookup(host, { all: true });
    } catch (error) {
      const reason = describeNetworkFailure(error, host);
      // A name that does not exist is a wrong URL; a DNS outage is not the caller's fault.
      if ((error as NodeJS.ErrnoException).code === 'ENOTFOUND') throw ValidationError.field(field, reason);
      throw new UpstreamError(`The source ${describeSource(parsed)} could not be checked: ${reason}.`, error);
    }
    for (const { address } of addresses) {
      const reason = addressRefusal(address, this.#allow);
      if (reason !== undefined) throw refusedError(field, new AddressRefusedError(host, address, reason));
    }
  }

  async download(req: DownloadRequest): Promise<DownloadResult> {
    let url = parseHttpUrl(req.url);
    if (!url) throw ValidationError.field('url', URL_MESSAGE);
    const custom = normaliseHeaders(req.headers, 'headers');
    // Credentials belong to the origin they were given for; curl's rule (without --location-trusted).
    const originalOrigin = url.origin;
    let basic = takeCredentials(url);
    let basicOrigin = url.origin;
    const deadline = AbortSignal.timeout(this.#options.totalTimeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
    const failure = (error: unknown, at: URL) =>
      this.#failure(error, at, deadline, req.signal, this.#options.totalTimeoutMs);

    for (let redirects = 0; ; redirects++) {
      const headers: Record<string, string> = { ...defaultFetchHeaders(this.#userAgent) };
      if (basic !== undefined && url.origin === basicOrigin) headers.authorization = basic;
      // Caller headers were given for the URL's origin: any of them may be a credential (X-Api-Key,
      // a signed token), so a hop to another origin gets the defaults only.
      if (url.origin === originalOrigin) Object.assign(headers, custom);

      let response: Dispatcher.ResponseData;
      try {
        const { agent, request } = await this.#client();
        response = await request(url, { dispatcher: agent, method: 'GET', headers, signal });
      } catch (error) {
        throw failure(error, url);
      }
      const { statusCode, headers: responseHeaders, body } = response;

      const location = headerValue(responseHeaders, 'location');
      if (REDIRECT_STATUSES.has(statusCode) && location !== undefined) {
        await body.dump().catch(() => {});
        if (redirects >= this.#options.maxRedirects) {
          throw new UpstreamError(
            `The source ${describeSource(url)} redirected more than ${this.#options.maxRedirects} times.`,
          );
        }
        const next = parseRedirect(location, url);
        if (!next)
          throw new UpstreamError(`The source ${describeSource(url)} redirected to an unsupported URL.`);
        const nextBasic = takeCredentials(next);
        if (nextBasic !== undefined) {
          basic = nextBasic;
          basicOrigin = next.origin;
        }
        url = next;
        continue;
      }
      if (statusCode < 200 || statusCode >= 300) {
        await body.dump().catch(() => {});
        const status = STATUS_CODES[statusCode]
          ? `${statusCode} ${STATUS_CODES[statusCode]}`
          : `${statusCode}`;
        throw new UpstreamError(`The source ${describeSource(url)} answered ${status}.`);
      }

      // A declared length above the cap fails before a byte is written.
      const declared = Number(headerValue(responseHeaders, 'content-length'));
      if (Number.isFinite(declared) && declared > req.maxBytes) {
        discard(body);
        throw new PayloadTooLargeError(req.maxBytes);
      }

      const hash = createHash('sha1');
      let size = 0;
      try {
        await pipeline(
          body,
          async function* meter(source: AsyncIterable<Buffer>) {
            for await (const chunk of source) {
              size += chunk.length;
              // Stop reading at once: the cap protects the disk from endless or lying responses.
              if (size > req.maxBytes) throw new ByteCapExceeded();
              hash.update(chunk);
              yield chunk;
            }
          },
          createWriteStream(req.destinationPath),
          { signal },
        );
      } catch (error) {
        discard(body);
        await rm(req.destinationPath, { force: true });
        if (error instanceof ByteCapExceeded) throw new PayloadTooLargeError(req.maxBytes);
        throw failure(error, url);
      }

      return {
        finalUrl: url.href,
        size,
        sha1: hash.digest('hex'),
        fileName: fileNameFor(headerValue(responseHeaders, 'content-disposition'), url),
        contentType: headerValue(responseHeaders, 'content-type'),
      };
    }
  }

  async post(req: PostRequest): Promise<PostResult> {
    const url = parseHttpUrl(req.url);
    if (!url) throw ValidationError.field('url', URL_MESSAGE);
    const basic = takeCredentials(url);
    const headers: Record<string, string> = { 'user-agent': this.#userAgent };
    if (basic !== undefined) headers.authorization = basic;
    Object.assign(headers, normaliseHeaders(req.headers, 'headers'));
    const deadline = AbortSignal.timeout(req.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
    const started = performance.now();
    try {
      const { agent, request } = await this.#client();
      const response = await request(url, {
        dispatcher: agent,
        method: 'POST',
        headers,
        body: req.body,
        signal,
      });
      // Webhook answers are not read, only drained (dump stops after 128 KiB) to free the connection.
      await response.body.dump({ limit: 128 * 1024, signal }).catch(() => {});
      return { status: response.statusCode, durationMs: Math.round(performance.now() - started) };
    } catch (error) {
      throw this.#failure(error, url, deadline, req.signal, req.timeoutMs);
    }
  }

  async close(): Promise<void> {
    if (this.#http !== undefined) await (await this.#http).agent.close();
  }

  /** Maps whatever a request or stream threw to the error the service reports. */
  #failure(
    error: unknown,
    url: URL,
    deadline: AbortSignal,
    caller: AbortSignal | undefined,
    limitMs: number,
  ): unknown {
    if (caller?.aborted) return caller.reason;
    if (error instanceof PressoError) return error;
    const refused = findRefusal(error);
    if (refused) return refusedError('url', refused);
    const source = describeSource(url);
    if (deadline.aborted) {
      return new UpstreamError(
        `The source ${source} did not answer in full within ${limitMs / 1000} seconds.`,
        error,
      );
    }
    const reason = describeNetworkFailure(error, unbracket(url.hostname));
    return new UpstreamError(`The source ${source} could not be fetched: ${reason}.`, error);
  }
}

/** Drops a response body without reading it; undici reports the abort as an error nobody needs. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

function parseRedirect(location: string, base: URL): URL | undefined {
  try {
    const next = new URL(location, base);
    return next.protocol === 'http:' || next.protocol === 'https:' ? next : undefined;
  } catch {
    return undefined;
  }
}

function refusedError(field: string, refused: AddressRefusedError): ValidationError {
  const { host, address, reason } = refused;
  const target = host === address ? address : `${host} resolves to ${address}`;
  return ValidationError.field(field, `points to an address that is not allowed: ${target} (${reason})`);
}

/** undici may hand the connector's error over as is, as a cause or inside an AggregateError. */
function findRefusal(error: unknown, depth = 0): AddressRefusedError | undefined {
  if (error instanceof AddressRefusedError) return error;
  if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const found = findRefusal(inner, depth + 1);
      if (found) return found;
    }
  }
  return findRefusal((error as { cause?: unknown }).cause, depth + 1);
}
