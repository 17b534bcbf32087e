/**
 * The shapes of the values a store builds its address from. Account names, account ids, regions and buckets
 * are names that go into a host name or a path, never URLs: checked here, a value such as `127.0.0.1:8080/x`
 * or `x@127.0.0.1` cannot turn `https://<account>.r2.cloudflarestorage.com` into another host. This is the
 * first layer only: the address guard judges every connection the SDKs open (src/outbound/guarded-agents.ts).
 * Every pattern is one character class with a bound (linear on any input).
 */

const LABEL = /^[A-Za-z0-9-]{1,63}$/;

/** A DNS label: letters, digits and hyphens, not at either end. */
export function isDnsLabel(text: string): boolean {
  return LABEL.test(text) && !text.startsWith('-') && !text.endsWith('-');
}

/** A DNS name of two labels or more (`core.windows.net`): no scheme, port, path or user. */
export function isDnsName(text: string): boolean {
  if (text.length > 253) return false;
  const labels = text.split('.');
  return labels.length >= 2 && labels.every(isDnsLabel);
}

/** An Azure storage account name: 3 to 24 lower-case letters and digits. */
export const AZURE_ACCOUNT = /^[a-z0-9]{3,24}$/;

/** A region as the providers spell them (`us-east-1`, `eu-central-003`, `ams3`). */
export const REGION = /^[a-z0-9-]{2,40}$/;

/** A bucket or container name. */
export const BUCKET = /^[A-Za-z0-9][A-Za-z0-9._-]{1,254}$/;

/** A SAS token: the query string of a signed URL (no `#`, no spaces), with or without its leading `?`. */
const SAS = /^[A-Za-z0-9%&=._~+/:,-]{1,8192}$/;

export function isSasToken(text: string): boolean {
  return SAS.test(text.startsWith('?') ? text.slice(1) : text);
}

/**
 * Why `text` is not an endpoint a store may be pointed at, or undefined: an absolute http(s) URL, without user
 * information, query or fragment (the SDKs append paths and queries of their own).
 */
export function endpointProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http or https URL';
  if (url.hostname === '') return 'must name a host';
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  if (url.search !== '' || url.hash !== '' || text.includes('?') || text.includes('#'))
    return 'must not carry a query or fragment';
  return undefined;
}
