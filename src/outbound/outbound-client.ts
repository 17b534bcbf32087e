/**
 * Every request the service makes to a caller-supplied URL (fetch sources, webhooks) goes through
 * this client, which refuses private and special addresses at every hop (see address-guard.ts).
 */
import type { OutboundConfig } from './config.ts';

/** The `outbound` config section (`allowCidrs`: reachable despite the guard, for tests and intranets), and: */
export interface OutboundOptions extends OutboundConfig {
  /** `User-Agent: <name>/1.0 (+<siteUrl>)`. */
  serviceName: string;
  siteUrl: string;
}

export interface DownloadRequest {
  url: string;
  /** Custom headers; they override the defaults (User-Agent, Accept, ...). */
  headers?: Record<string, string>;
  /** Where to write the body. */
  destinationPath: string;
  /** The download fails with PayloadTooLargeError past this many bytes. */
  maxBytes: number;
  signal?: AbortSignal;
}

export interface DownloadResult {
  /** The URL after redirects. */
  finalUrl: string;
  size: number;
  sha1: string;
  /** From Content-Disposition or the URL path; may be empty. */
  fileName: string;
  contentType: string | undefined;
}

export interface PostRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface PostResult {
  status: number;
  durationMs: number;
}

export interface OutboundClient {
  /**
   * Rejects a URL that can never be fetched (scheme, syntax, a literal or resolved address the guard
   * refuses) with ValidationError on `field`, before any work is accepted.
   */
  checkUrl(url: string, field: string): Promise<void>;
  /** Streams the body to disk, hashing as it goes. Upstream failures throw UpstreamError naming the source. */
  download(request: DownloadRequest): Promise<DownloadResult>;
  /** One POST without following redirects; network failures throw UpstreamError. */
  post(request: PostRequest): Promise<PostResult>;
  close(): Promise<void>;
}
