import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressRefusal, isAddressAllowed, parseCidr } from '../../src/outbound/address-guard.ts';

describe('address guard: refused by default', () => {
  const refused: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['::1', /loopback/],
    ['0:0:0:0:0:0:0:1', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['fc00::1', /unique local/],
    ['fd12:3456::1', /unique local/],
    ['169.254.1.1', /link-local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['fec0::1', /site-local/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['ff02::1', /multicast/],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['::', /unspecified/],
    ['255.255.255.255', /reserved|broadcast/],
    ['240.0.0.1', /reserved/],
    ['198.18.0.1', /benchmarking/],
    ['198.19.255.255', /benchmarking/],
    ['192.0.2.1', /documentation/],
    ['198.51.100.7', /documentation/],
    ['203.0.113.9', /documentation/],
    ['2001:db8::1', /documentation/],
    ['2001:2::1', /benchmarking/],
    ['::ffff:127.0.0.1', /embeds 127\.0\.0\.1: loopback/],
    ['::ffff:7f00:1', /embeds 127\.0\.0\.1: loopback/],
    ['0:0:0:0:0:ffff:a00:1', /embeds 10\.0\.0\.1: private/],
    ['64:ff9b::7f00:1', /embeds 127\.0\.0\.1/],
    ['64:ff9b::192.168.0.1', /embeds 192\.168\.0\.1/],
    ['64:ff9b:1::1', /local-use NAT64/],
    ['2002:7f00:1::1', /embeds 127\.0\.0\.1/],
    ['2002:a9fe:a9fe::', /embeds 169\.254\.169\.254: cloud metadata/],
    ['2001::1', /Teredo/],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
    ['::127.0.0.1', /IPv4-compatible/],
    ['169.254.169.254', /metadata/],
    ['fd00:ec2::254', /metadata/],
    ['100.100.100.200', /metadata/],
    ['::ffff:169.254.169.254', /metadata/],
    ['100::1', /discard/],
    ['4000::1', /not global unicast/],
    ['not-an-ip', /not an IP/],
    ['', /not an IP/],
    ['127.1', /not an IP/],
    ['0177.0.0.1', /not an IP/],
  ];
  for (const [ip, reason] of refused) {
    it(`refuses ${ip || '(empty)'}`, () => {
      assert.equal(isAddressAllowed(ip, []), false);
      assert.match(addressRefusal(ip, []) ?? '', reason);
    });
  }
});

describe('address guard: public addresses allowed', () => {
  const allowed = [
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '2606:4700::1111',
    '2a00:1450:4001:82b::200e',
    '::ffff:93.184.216.34',
    '64:ff9b::808:808',
    '2002:5db8:d822::1',
    // Just outside the refused ranges: the bounds are right.
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '11.0.0.0',
    '9.255.255.255',
    '2001:4860:4860::8888',
  ];
  for (const ip of allowed) {
    it(`allows ${ip}`, () => {
      assert.equal(addressRefusal(ip, []), undefined);
      assert.equal(isAddressAllowed(ip, []), true);
    });
  }
});

describe('address guard: allow-list', () => {
  it('allows exactly the listed ranges', () => {
    assert.equal(isAddressAllowed('127.0.0.1', ['127.0.0.1/32']), true);
    assert.equal(isAddressAllowed('127.0.0.2', ['127.0.0.1/32']), false);
    assert.equal(isAddressAllowed('10.9.9.9', ['10.0.0.0/8']), true);
    assert.equal(isAddressAllowed('11.0.0.1', ['10.0.0.0/8']), true); // public anyway
    assert.equal(isAddressAllowed('192.168.0.1', ['10.0.0.0/8']), false);
    assert.equal(isAddressAllowed('::1', ['::1']), true);
    assert.equal(isAddressAllowed('fd00::5', ['fd00::/8']), true);
    assert.equal(isAddressAllowed('fc00::5', ['fd00::/8']), false);
  });

  it('judges an IPv4-mapped address by the IPv4 allow-list', () => {
    assert.equal(isAddressAllowed('::ffff:127.0.0.1', ['127.0.0.1/32']), true);
    assert.equal(isAddressAllowed('::ffff:127.0.0.2', ['127.0.0.1/32']), false);
  });

  it('accepts pre-parsed CIDRs and ignores invalid strings', () => {
    const parsed = parseCidr('192.168.0.0/16')!;
    assert.equal(isAddressAllowed('192.168.7.7', [parsed]), true);
    assert.equal(isAddressAllowed('192.168.7.7', ['bogus']), false);
  });

  it('opens a metadata endpoint only through an entry naming it exactly', () => {
    assert.equal(isAddressAllowed('169.254.169.254', ['169.254.0.0/16']), false);
    assert.equal(isAddressAllowed('169.254.1.1', ['169.254.0.0/16']), true);
    assert.equal(isAddressAllowed('100.100.100.200', ['100.64.0.0/10']), false);
    assert.equal(isAddressAllowed('fd00:ec2::254', ['fd00::/8']), false);
    assert.equal(isAddressAllowed('169.254.169.254', ['169.254.169.254/32']), true);
    assert.equal(isAddressAllowed('169.254.169.254', ['169.254.169.254']), true);
  });
});

describe('parseCidr', () => {
  it('parses IPv4, IPv6 and bare addresses', () => {
    assert.deepEqual(parseCidr('10.0.0.0/8'), {
      family: 4,
      bytes: Uint8Array.from([10, 0, 0, 0]),
      prefix: 8,
    });
    assert.deepEqual(parseCidr('127.0.0.1'), {
      family: 4,
      bytes: Uint8Array.from([127, 0, 0, 1]),
      prefix: 32,
    });
    assert.equal(parseCidr('::1')?.prefix, 128);
    assert.equal(parseCidr('::1')?.bytes[15], 1);
    const v6 = parseCidr('2001:db8::/32')!;
    assert.equal(v6.family, 6);
    assert.deepEqual(Array.from(v6.bytes.slice(0, 4)), [0x20, 0x01, 0x0d, 0xb8]);
    assert.deepEqual(Array.from(parseCidr('::ffff:1.2.3.4/128')!.bytes.slice(10)), [0xff, 0xff, 1, 2, 3, 4]);
    assert.equal(parseCidr('0.0.0.0/0')?.prefix, 0);
  });

  it('clears host bits', () => {
    assert.deepEqual(Array.from(parseCidr('10.1.2.3/8')!.bytes), [10, 0, 0, 0]);
    assert.deepEqual(Array.from(parseCidr('172.31.9.9/12')!.bytes), [172, 16, 0, 0]);
  });

  it('returns undefined for anything invalid', () => {
    for (const text of [
      '',
      'abc',
      '10.0.0.0/33',
      '::/129',
      '10.0.0.0/',
      '10.0.0.0/-1',
      '10.0.0.0/8/8',
      '10.0.0.0/ 8',
      ' 10.0.0.0/8',
      '010.0.0.1',
      '1.2.3',
      '256.0.0.0/8',
      'fe80::1%eth0',
      'fe80::1%eth0/64',
      '10.0.0.0/8.0',
    ]) {
      assert.equal(parseCidr(text), undefined, text);
    }
  });
});
