/**
 * Decides which IP addresses the outbound client may connect to. Caller-supplied URLs (fetch sources,
 * webhooks) must not reach the service's own host, its network or the cloud metadata endpoint (SSRF),
 * so everything that is not ordinary public unicast is refused unless an operator allow-lists it.
 *
 * Addresses are compared as bytes rather than strings so that every spelling of an address
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`, `0:0:0:0:0:ffff:7f00:1`) is judged the same way.
 */
import { isIP } from 'node:net';

export interface ParsedCidr {
  family: 4 | 6;
  /** The network address, host bits cleared: 4 or 16 bytes. */
  bytes: Uint8Array;
  prefix: number;
}

interface Address {
  family: 4 | 6;
  bytes: Uint8Array;
}

interface Range {
  cidr: ParsedCidr;
  reason: string;
}

/** Builds a range table from literal CIDRs; a typo here is a programming error, so it throws. */
function ranges(entries: Array<[string, string]>): Range[] {
  return entries.map(([text, reason]) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`address-guard: bad built-in CIDR ${text}`);
    return { cidr, reason };
  });
}

/** IPv4 ranges that are not public unicast (IANA special-purpose registry, RFC 6890 and successors). */
const REFUSED_V4 = ranges([
  ['0.0.0.0/8', 'unspecified ("this network"; 0.0.0.0 reaches the local host on Linux)'],
  ['10.0.0.0/8', 'private (RFC 1918)'],
  ['100.64.0.0/10', 'carrier-grade NAT (RFC 6598), also hosts the Alibaba metadata service'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local, hosts the AWS/GCP/Azure metadata service'],
  ['172.16.0.0/12', 'private (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['192.88.99.0/24', '6to4 relay anycast (deprecated)'],
  ['192.168.0.0/16', 'private (RFC 1918)'],
  ['198.18.0.0/15', 'benchmarking (RFC 2544)'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'broadcast'],
]);

/**
 * IPv6 ranges that are not public unicast. Anything outside 2000::/3 is refused as well (see
 * GLOBAL_UNICAST_V6); the entries below that lie outside it are listed so the reason is precise.
 */
const REFUSED_V6 = ranges([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'IPv4-compatible (deprecated)'],
  ['64:ff9b:1::/48', 'local-use NAT64 (RFC 8215)'],
  ['100::/64', 'discard-only (RFC 6666)'],
  ['2001::/32', 'Teredo tunnel (the IPv4 endpoint inside is obfuscated and cannot be judged)'],
  ['2001:2::/48', 'benchmarking (RFC 5180)'],
  ['2001:10::/28', 'ORCHID (deprecated)'],
  ['2001:20::/28', 'ORCHIDv2'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation (RFC 9637)'],
  ['fc00::/7', 'unique local (private), hosts the AWS IPv6 metadata service'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (deprecated)'],
  ['ff00::/8', 'multicast'],
]);

/** Only 2000::/3 is allocated for global unicast; everything else is special or unallocated. */
const GLOBAL_UNICAST_V6 = parseCidr('2000::/3')!;

/**
 * IPv6 forms that carry an IPv4 address the packets end up at: they are judged by that address, so
 * `::ffff:127.0.0.1` is loopback and `64:ff9b::808:808` is as public as 8.8.8.8.
 */
const EMBEDDING_V6: Array<{ cidr: ParsedCidr; offset: number }> = [
  { cidr: parseCidr('::ffff:0:0/96')!, offset: 12 }, // IPv4-mapped
  { cidr: parseCidr('64:ff9b::/96')!, offset: 12 }, // NAT64 well-known prefix (RFC 6052)
  { cidr: parseCidr('2002::/16')!, offset: 2 }, // 6to4 (RFC 3056): 2002:AABB:CCDD::/48
];

/**
 * Cloud metadata endpoints hand out credentials. They already sit inside refused ranges, but they
 * stay refused even when a broader allow-list range covers them (allowing 100.64.0.0/10 for an
 * intranet must not open Alibaba's metadata service): only an entry naming exactly them opens them.
 */
const METADATA: Address[] = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'].map(
  (text) => parseAddress(text)!,
);

/** Parses `a.b.c.d/n`, `x::y/n` or a bare address (/32, /128). Returns undefined when invalid. */
export function parseCidr(text: string): ParsedCidr | undefined {
  const slash = text.indexOf('/');
  const address = parseAddress(slash === -1 ? text : text.slice(0, slash));
  if (!address || text.includes('%')) return undefined;
  const bits = address.bytes.length * 8;
  let prefix = bits;
  if (slash !== -1) {
    const digits = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(digits)) return undefined;
    prefix = Number(digits);
    if (prefix > bits) return undefined;
  }
  // Host bits are cleared so `10.1.2.3/8` means 10.0.0.0/8, as an operator writing it expects.
  const bytes = address.bytes.slice();
  for (let bit = prefix; bit < bits; bit++) bytes[bit >> 3]! &= ~(0x80 >> (bit & 7));
  return { family: address.family, bytes, prefix };
}

/** True when the guard lets the service connect to `ip` (see addressRefusal for the rules). */
export function isAddressAllowed(ip: string, allowCidrs: ParsedCidr[] | string[]): boolean {
  return addressRefusal(ip, allowCidrs) === undefined;
}

/**
 * Why `ip` is refused (e.g. "loopback"), or undefined when it is allowed. Rules, in order:
 * metadata endpoints need an exact allow entry; an allow-listed address is allowed; IPv6 forms
 * embedding an IPv4 address are judged by it; special-purpose ranges are refused; the rest is public.
 */
export function addressRefusal(ip: string, allowCidrs: ParsedCidr[] | string[]): string | undefined {
  // Scoped IPv6 addresses (fe80::1%eth0) are judged without the zone; link-local is refused anyway.
  const zone = ip.indexOf('%');
  const address = parseAddress(zone === -1 ? ip : ip.slice(0, zone));
  if (!address) return 'not an IP address';
  return judge(address, toCidrs(allowCidrs));
}

/** Parses an allow-list given as strings; the client does this once rather than per connection. */
export function compileAllowList(cidrs: ParsedCidr[] | string[]): ParsedCidr[] {
  return toCidrs(cidrs);
}

function toCidrs(cidrs: ParsedCidr[] | string[]): ParsedCidr[] {
  const parsed: ParsedCidr[] = [];
  for (const entry of cidrs) {
    const cidr = typeof entry === 'string' ? parseCidr(entry) : entry;
    // Config validation rejects bad entries at start-up; here an invalid one simply allows nothing.
    if (cidr) parsed.push(cidr);
  }
  return parsed;
}

function judge(address: Address, allow: ParsedCidr[]): string | undefined {
  if (METADATA.some((meta) => sameAddress(meta, address))) {
    const exact = allow.some((cidr) => cidr.prefix === cidr.bytes.length * 8 && contains(cidr, address));
    return exact ? undefined : 'cloud metadata service';
  }
  if (allow.some((cidr) => contains(cidr, address))) return undefined;
  if (address.family === 6) {
    for (const { cidr, offset } of EMBEDDING_V6) {
      if (contains(cidr, address)) {
        const embedded: Address = { family: 4, bytes: address.bytes.slice(offset, offset + 4) };
        const reason = judge(embedded, allow);
        return reason === undefined ? undefined : `embeds ${formatIpv4(embedded.bytes)}: ${reason}`;
      }
    }
  }
  const table = address.family === 4 ? REFUSED_V4 : REFUSED_V6;
  const hit = table.find((range) => contains(range.cidr, address));
  if (hit) return hit.reason;
  if (address.family === 6 && !contains(GLOBAL_UNICAST_V6, address)) return 'not global unicast';
  return undefined;
}

function contains(cidr: ParsedCidr, address: Address): boolean {
  if (cidr.family !== address.family) return false;
  const whole = cidr.prefix >> 3;
  for (let i = 0; i < whole; i++) if (cidr.bytes[i] !== address.bytes[i]) return false;
  const rest = cidr.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (cidr.bytes[whole]! & mask) === (address.bytes[whole]! & mask);
}

function sameAddress(a: Address, b: Address): boolean {
  return a.family === b.family && a.bytes.every((byte, i) => byte === b.bytes[i]);
}

/** Strict parse: node:net decides validity (no octal or short IPv4 forms), then bytes are extracted. */
function parseAddress(text: string): Address | undefined {
  const family = isIP(text);
  if (family === 4) return { family: 4, bytes: parseIpv4(text) };
  if (family === 6 && !text.includes('%')) return { family: 6, bytes: parseIpv6(text) };
  return undefined;
}

function parseIpv4(text: string): Uint8Array {
  return Uint8Array.from(text.split('.').map(Number));
}

function parseIpv6(text: string): Uint8Array {
  let source = text;
  // A trailing dotted quad (::ffff:1.2.3.4) becomes two hex groups.
  const lastColon = source.lastIndexOf(':');
  if (source.includes('.', lastColon)) {
    const v4 = parseIpv4(source.slice(lastColon + 1));
    const high = ((v4[0]! << 8) | v4[1]!).toString(16);
    const low = ((v4[2]! << 8) | v4[3]!).toString(16);
    source = `${source.slice(0, lastColon + 1)}${high}:${low}`;
  }
  const [left = '', right] = source.split('::');
  const head = left === '' ? [] : left.split(':');
  const tail = right === undefined || right === '' ? [] : right.split(':');
  const groups = [...head, ...new Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

function formatIpv4(bytes: Uint8Array): string {
  return Array.from(bytes).join('.');
}
