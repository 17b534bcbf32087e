/**
 * Webhook signatures per Standard Webhooks, with WebCrypto only (Node 22+, browsers, edge runtimes):
 * `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` keyed with the base64
 * bytes after the secret's `whsec_` prefix. During a secret rotation the server sends two signatures,
 * space-separated; one valid signature is enough. Interoperable with the `standardwebhooks` libraries.
 */
import { PressoClientError } from './errors.ts';

export class PressoWebhookError extends PressoClientError {
  override name = 'PressoWebhookError';
}

export type WebhookHeaderSource = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Largest distance of `webhook-timestamp` from now, seconds (default 300, as Standard Webhooks). */
  toleranceSeconds?: number;
  /** Now, in Unix seconds (for tests and replays of recorded deliveries). */
  nowSeconds?: number;
}

const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

function header(headers: WebhookHeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers))
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(' ') : value;
  return undefined;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

async function hmac(secret: string, content: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  let raw: Uint8Array<ArrayBuffer>;
  try {
    raw = fromBase64(encoded);
  } catch {
    throw new PressoWebhookError('The webhook secret is not base64 (whsec_...).');
  }
  if (raw.length === 0) throw new PressoWebhookError('The webhook secret is empty.');
  const key = await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, content));
}

function signedContent(id: string, timestamp: string, body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const payload = typeof body === 'string' ? encoder.encode(body) : body;
  const content = new Uint8Array(prefix.length + payload.length);
  content.set(prefix);
  content.set(payload, prefix.length);
  return content;
}

/** Constant-time comparison of two byte strings of equal length. */
function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/** The `webhook-signature` value for a message (for tests of a receiver, and for interoperability). */
export async function signWebhook(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string | Uint8Array,
): Promise<string> {
  return `v1,${toBase64(await hmac(secret, signedContent(id, String(timestampSeconds), body)))}`;
}

/**
 * Verifies a delivery and returns its parsed JSON payload; throws `PressoWebhookError` when a header is
 * missing, the timestamp is outside the tolerance, or no signature matches. `body` must be the raw body
 * as received (re-serialised JSON has other bytes).
 */
export async function verifyWebhook<T = unknown>(
  body: string | Uint8Array,
  headers: WebhookHeaderSource,
  secret: string,
  options: VerifyOptions = {},
): Promise<T> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new PressoWebhookError('Missing webhook-id, -timestamp or -signature.');
  if (!/^\d{1,12}$/.test(timestamp)) throw new PressoWebhookError('Invalid webhook-timestamp.');
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Number(timestamp) < now - tolerance) throw new PressoWebhookError('The webhook timestamp is too old.');
  if (Number(timestamp) > now + tolerance) throw new PressoWebhookError('The webhook timestamp is too new.');
  const expected = await hmac(secret, signedContent(id, timestamp, body));
  let valid = false;
  for (const candidate of signatures.split(' ')) {
    const comma = candidate.indexOf(',');
    if (comma === -1 || candidate.slice(0, comma) !== 'v1') continue;
    let given: Uint8Array;
    try {
      given = fromBase64(candidate.slice(comma + 1));
    } catch {
      continue;
    }
    // Every candidate is checked (no early exit), each in constant time.
    if (equal(given, expected)) valid = true;
  }
  if (!valid) throw new PressoWebhookError('No matching webhook signature.');
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  return JSON.parse(text) as T;
}
