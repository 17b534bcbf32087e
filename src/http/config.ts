/** The HTTPS server's configuration: listening, TLS, proxies, and the limits on clients and connections. */

import { bytes, duration, int, type Loaded, list, oneOf, optionalStr, section, str } from '../config/env.ts';
import { withoutTrailingSlashes } from '../config/text.ts';
import { ConfigError } from '../errors/catalog.ts';
import { parseCidr } from '../outbound/address-guard.ts';

const checkCidr = (item: string) => (parseCidr(item) ? undefined : 'has an invalid address or CIDR');

export const serverConfig = section(
  {
    host: str('PRESSO_HOST', {
      default: '127.0.0.1',
      doc: 'Address to listen on (0.0.0.0 for all interfaces)',
    }),
    port: int('PRESSO_PORT', { default: 8443, min: 0, max: 65535, doc: 'TCP port of the HTTPS API' }),
    publicUrl: str('PRESSO_PUBLIC_URL', {
      default: '',
      doc: 'Base URL clients use (default https://localhost:<port>)',
    }),
    tls: oneOf('PRESSO_TLS', {
      values: ['on', 'off'] as const,
      default: 'on',
      doc: 'Terminate TLS here, or expect a trusted proxy',
    }),
    tlsCertPath: optionalStr('PRESSO_TLS_CERT', {
      doc: 'PEM certificate path (default: self-signed pair in the data dir)',
    }),
    tlsKeyPath: optionalStr('PRESSO_TLS_KEY', { doc: 'PEM private key path' }),
    trustedProxies: list('PRESSO_TRUSTED_PROXIES', {
      default: [],
      check: checkCidr,
      doc: 'Proxy addresses/CIDRs whose X-Forwarded-Proto is trusted',
    }),
    shutdownGraceMs: duration('PRESSO_SHUTDOWN_GRACE', {
      default: 25_000,
      doc: 'Time running jobs get to finish on shutdown',
    }),
    headersTimeoutMs: duration('PRESSO_HEADERS_TIMEOUT', {
      default: 20_000,
      doc: 'Time a client has to send the request headers (and the first byte); then 408',
    }),
    bodyIdleTimeoutMs: duration('PRESSO_BODY_IDLE_TIMEOUT', {
      default: 30_000,
      doc: 'A request body that sends nothing for this long is refused with 408; also the window of the minimum rate',
    }),
    // Apache's mod_reqtimeout defaults (body=20s, MinRate=500) have long been safe for real clients.
    bodyMinBytesPerSecond: bytes('PRESSO_BODY_MIN_RATE', {
      default: 500,
      doc: 'Slowest accepted request body, per second, averaged over each idle time-out window; 0 turns it off',
    }),
    maxConnections: int('PRESSO_MAX_CONNECTIONS', {
      default: 2000,
      doc: 'Open client connections at once; more are closed on accept (0: no cap)',
    }),
    maxConnectionsPerAddress: int('PRESSO_MAX_CONNECTIONS_PER_ADDRESS', {
      default: 200,
      doc: 'Open connections at once from one client address, trusted proxies exempt (0: no cap)',
    }),
    maxUploadsPerKey: int('PRESSO_MAX_UPLOADS_PER_KEY', {
      default: 16,
      doc: 'Uploads one API key may be sending at once; more get 429 (0: no cap)',
    }),
  },
  (v) => {
    if (v.tls === 'off' && v.trustedProxies.length === 0) {
      throw new ConfigError(
        'PRESSO_TLS=off needs PRESSO_TRUSTED_PROXIES: only a trusted proxy may terminate TLS',
      );
    }
    if ((v.tlsCertPath === undefined) !== (v.tlsKeyPath === undefined)) {
      throw new ConfigError('PRESSO_TLS_CERT and PRESSO_TLS_KEY must be set together');
    }
    return { ...v, publicUrl: withoutTrailingSlashes(v.publicUrl || `https://localhost:${v.port}`) };
  },
);

export type ServerConfig = Loaded<typeof serverConfig>;
