/** Outbound requests (fetch sources, webhooks, store connectors): the address guard's exceptions, time-outs, and who we say we are. */
import { duration, int, type Loaded, list, section, str } from '../config/env.ts';
import { parseCidr } from './address-guard.ts';

export const outboundConfig = section({
  allowCidrs: list('PRESSO_OUTBOUND_ALLOW', {
    default: [],
    check: (item) => (parseCidr(item) ? undefined : 'has an invalid address or CIDR'),
    doc: 'CIDRs that fetch, webhooks and store connectors may reach despite the private-address guard',
  }),
  connectTimeoutMs: duration('PRESSO_FETCH_CONNECT_TIMEOUT', {
    default: 10_000,
    doc: 'Outbound connect time-out',
  }),
  totalTimeoutMs: duration('PRESSO_FETCH_TIMEOUT', {
    default: 300_000,
    doc: 'Outbound download time-out, whole transfer',
  }),
  maxRedirects: int('PRESSO_FETCH_MAX_REDIRECTS', {
    default: 5,
    min: 0,
    max: 20,
    doc: 'Redirects followed by fetch',
  }),
});

/** `User-Agent: <name>/1.0 (+<siteUrl>)` on every outbound request. */
export const serviceIdentityConfig = section({
  name: str('PRESSO_SERVICE_NAME', { default: 'Presso', doc: 'Service name in the outbound User-Agent' }),
  siteUrl: str('PRESSO_SERVICE_URL', {
    default: 'https://github.com/presso-dev/presso',
    doc: 'Site URL in the outbound User-Agent',
  }),
});

export type OutboundConfig = Loaded<typeof outboundConfig>;
export type ServiceIdentity = Loaded<typeof serviceIdentityConfig>;
