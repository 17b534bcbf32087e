/**
 * Pure helpers of the outbound client: URL checks, credentials, headers, file names and the wording
 * of errors. Kept apart from the networking so each rule can be read (and tested) on its own.
 */
import { ValidationError } from '../errors/catalog.ts';

/** The parsed URL when it is absolute http(s), else undefined. WHATWG URL normalises the host. */
export function parseHttpUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return url.hostname === '' ? undefined : url;
}

/**
 * Takes `user:password@` out of the URL (it must never reach the request line, logs or errors) and
 * returns the matching `Authorization: Basic` value, percent-decoded as RFC 3986 userinfo is.
 */
export function takeCredentials(url: URL): string | undefined {
  if (url.username === '' && url.password === '') return undefined;
  const user = safeDecode(url.username);
  const password = safeDecode(url.password);
  url.username = '';
  url.password = '';
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

/** What errors print about a source: origin and path, never userinfo or the query (signed URLs). */
export function describeSource(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** Framing and hop-by-hop headers are the client's business; a caller setting them breaks the request. */
const RESERVED_HEADERS = new Set([
  'connection',
  'content-length',
  'expect',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Lower-cases caller headers and rejects names or values no HTTP request can carry. */
export function normaliseHeaders(
  headers: Record<string, string> | undefined,
  field: string,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) throw ValidationError.field(field, `"${name}" is not a valid header name`);
    if (typeof value !== 'string' || /[\r\n\0]/.test(value)) {
      throw ValidationError.field(`${field}.${name}`, 'must be a string without line breaks');
    }
    if (RESERVED_HEADERS.has(lower)) throw ValidationError.field(`${field}.${name}`, 'cannot be set');
    result[lower] = value;
  }
  return result;
}

/** `<name>/1.0 (+<site>)`: the version is the API's, as the interface specifies. */
export function userAgent(serviceName: string, siteUrl: string): string {
  return `${serviceName}/1.0 (+${siteUrl})`;
}

export function defaultFetchHeaders(agent: string): Record<string, string> {
  return {
    'user-agent': agent,
    accept: '*/*',
    'accept-language': 'en-US,en;q=0.8',
    'cache-control': 'no-cache',
    pragma: 'no-cache',
  };
}

/** One response header as a string (undici gives arrays for repeated headers). */
export function headerValue(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The name to give the stored file: Content-Disposition first, then the last URL path segment. */
export function fileNameFor(contentDisposition: string | undefined, url: URL): string {
  const fromHeader = contentDisposition ? fromContentDisposition(contentDisposition) : undefined;
  if (fromHeader) return fromHeader;
  const segment = url.pathname.split('/').pop() ?? '';
  return sanitiseFileName(safeDecode(segment));
}

function fromContentDisposition(value: string): string | undefined {
  // RFC 6266: filename* (RFC 8187 charset'lang'percent-encoded) wins over filename.
  const extended = /(?:^|;)\s*filename\*\s*=\s*([^;]*)/i.exec(value)?.[1]?.trim();
  const parts = extended ? /^([A-Za-z0-9!#$%&+^_`{}~-]*)'[^']*'(.*)$/.exec(extended) : null;
  if (parts) {
    const charset = (parts[1] ?? '').toLowerCase();
    const encoded = parts[2] ?? '';
    const decoded = charset === 'iso-8859-1' ? decodeLatin1Percent(encoded) : safeDecode(encoded);
    const name = sanitiseFileName(decoded);
    if (name) return name;
  }
  const plain = /(?:^|;)\s*filename\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/i.exec(value)?.[1]?.trim();
  if (!plain) return undefined;
  const unquoted = plain.startsWith('"') ? plain.slice(1, -1).replace(/\\(.)/g, '$1') : plain;
  return sanitiseFileName(latin1AsUtf8(unquoted)) || undefined;
}

/** Header values arrive as latin1; servers commonly put raw UTF-8 in a quoted filename. */
function latin1AsUtf8(text: string): string {
  const codes = Array.from(text, (char) => char.charCodeAt(0));
  if (codes.some((code) => code > 0xff) || !codes.some((code) => code >= 0x80)) return text;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'latin1'));
  } catch {
    return text;
  }
}

function decodeLatin1Percent(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** A name, not a path: directories and control characters are dropped so it cannot escape anywhere. */
function sanitiseFileName(name: string): string {
  const base = (name.split(/[/\\]/).pop() ?? '').replace(CONTROL_CHARACTERS, '').trim();
  return base === '.' || base === '..' ? '' : base;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Turns a connection-level failure into the reason an UpstreamError gives, naming the host. */
export function describeNetworkFailure(error: unknown, host: string): string {
  const code = errorCode(error);
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_NONAME':
    case 'EAI_NODATA':
      return `the host ${host} could not be resolved`;
    case 'EAI_AGAIN':
      return `the host ${host} could not be resolved (temporary DNS failure)`;
    case 'ECONNREFUSED':
      return `${host} refused the connection`;
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return `${host} did not accept the connection in time`;
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return `${host} closed the connection unexpectedly`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${host} is unreachable`;
    default:
      if (code && /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/.test(code)) {
        return `the TLS connection to ${host} failed (${code})`;
      }
      return `${host} could not be reached${code ? ` (${code})` : ''}`;
  }
}

/** The error code, looking inside AggregateError (happy eyeballs tries several addresses). */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  if (error instanceof AggregateError) return errorCode(error.errors[0]);
  return undefined;
}
