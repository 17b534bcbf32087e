/**
 * Webhook signatures per the Standard Webhooks convention (https://www.standardwebhooks.com), so
 * clients can verify deliveries with any of its libraries or with this module:
 *
 *   webhook-id:        the delivery id (stable across retries: use it to de-duplicate)
 *   webhook-timestamp: Unix seconds of this attempt (reject old ones to stop replays)
 *   webhook-signature: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the bytes
 *                      of the secret after its `whsec_` prefix, base64-decoded. Several signatures
 *                      may be sent space-separated (during a secret rotation); any one matching is enough.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new TypeError('The webhook secret is empty.');
  return key;
}

/** The `webhook-signature` header value for one message. */
export function signWebhook(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  return `v1,${mac(secret, msgId, String(timestampSeconds), body).toString('base64')}`;
}

/** The timestamp is signed as the exact header text, so a verifier never re-formats it. */
function mac(secret: string, msgId: string, timestamp: string, body: string): Buffer {
  return createHmac('sha256', secretKey(secret)).update(`${msgId}.${timestamp}.${body}`).digest();
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value.join(' ') : value;
}

/**
 * Whether a received webhook is authentic and fresh. `body` must be the raw request body, exactly as
 * received (re-serialising parsed JSON changes the bytes). Timestamps further than
 * `toleranceSeconds` from now, in either direction, are refused.
 */
export function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string,
  toleranceSeconds = 300,
  nowSeconds: number = Date.now() / 1000,
): boolean {
  const msgId = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!msgId || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false;

  const expected = mac(secret, msgId, timestamp, body);
  let valid = false;
  for (const candidate of signatures.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    // Check every candidate (no early exit) and compare in constant time.
    if (given.length === expected.length && timingSafeEqual(given, expected)) valid = true;
  }
  return valid;
}
