/**
 * The undici connector that enforces the address guard at the socket level. The hostname is resolved
 * once, here; every address it resolves to is checked, and the socket is handed exactly those
 * addresses, so a DNS answer that changes between a check and the connection (DNS rebinding) cannot
 * slip through. Literal-IP hosts never reach a lookup and are checked before connecting.
 */

import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import type { buildConnector } from 'undici';
import type { ParsedCidr } from './address-guard.ts';
import { addressRefusal } from './address-guard.ts';

/** Raised inside the connection machinery; the client turns it into a ValidationError on the URL field. */
export class AddressRefusedError extends Error {
  readonly code = 'ERR_PRESSO_ADDRESS_REFUSED';
  readonly host: string;
  readonly address: string;
  readonly reason: string;

  constructor(host: string, address: string, reason: string) {
    super(`The address ${address} of ${host} is not allowed (${reason}).`);
    this.name = 'AddressRefusedError';
    this.host = host;
    this.address = address;
    this.reason = reason;
  }
}

/** `[::1]` as undici or WHATWG URL spell it becomes `::1`. */
export function unbracket(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Resolves `hostname` to all its addresses and refuses the lot if any one of them is refused. */
export function resolveChecked(
  hostname: string,
  allow: ParsedCidr[],
  family: number | undefined,
  callback: (error: Error | null, addresses: LookupAddress[]) => void,
): void {
  dnsLookup(hostname, { all: true, family: family ?? 0 }, (error, addresses) => {
    if (error) return callback(error, []);
    if (addresses.length === 0) {
      return callback(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
        [],
      );
    }
    // All addresses, not just the first: the socket may fall back to any of them (happy eyeballs).
    for (const { address } of addresses) {
      const reason = addressRefusal(address, allow);
      if (reason !== undefined) return callback(new AddressRefusedError(hostname, address, reason), []);
    }
    callback(null, addresses);
  });
}

/** `build` is undici's `buildConnector`, passed in so that undici loads only when a client needs it. */
export function createGuardedConnector(
  build: typeof buildConnector,
  allow: ParsedCidr[],
  connectTimeoutMs: number,
): buildConnector.connector {
  // net.connect / tls.connect call this instead of dns.lookup, and connect to what it answers.
  const lookup: LookupFunction = (hostname, options, callback) => {
    const family = typeof options.family === 'number' ? options.family : undefined;
    resolveChecked(hostname, allow, family, (error, addresses) => {
      if (error) return callback(error as NodeJS.ErrnoException, '', 0);
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
  const connect = build({ timeout: connectTimeoutMs, lookup });

  return (options, callback) => {
    const host = unbracket(options.hostname);
    if (isIP(host) !== 0) {
      const reason = addressRefusal(host, allow);
      if (reason !== undefined) {
        callback(new AddressRefusedError(host, host, reason), null);
        return;
      }
    }
    connect(options, callback);
  };
}
