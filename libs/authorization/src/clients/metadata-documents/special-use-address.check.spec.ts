import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { addressRange, addressRefusal } from './special-use-address.check.js';

const STRICT = { allowLoopback: false };
const DEVELOPMENT = { allowLoopback: true };

describe('addressRefusal', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['192.0.2.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'ipv4Mapped(private)'],
    ['::ffff:169.254.169.254', 'ipv4Mapped(linkLocal)'],
    ['::ffff:93.184.216.34', 'ipv4Mapped(unicast)'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:7f00:1::', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001:db8::1', 'reserved'],
    ['::7f00:1', 'notGlobalUnicast'],
    ['[::1]', 'loopback'],
  ])('refuses %s (%s)', (address, range) => {
    expect(addressRefusal(address, STRICT)).toBe(range);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '[2a00:1450:4001:81b::200e]'])(
    'accepts public %s',
    (address) => {
      expect(addressRefusal(address, STRICT)).toBeUndefined();
    },
  );

  it('refuses text that is not an IP address, including the numeric forms a URL parser would rewrite', () => {
    for (const text of ['2130706433', '0x7f.1', '017700000001', '127.1', 'localhost', '']) {
      expect(addressRefusal(text, STRICT)).toBe('not an IP address');
    }
  });

  it('allows loopback only in the development mode, and nothing else special there', () => {
    expect(addressRefusal('127.0.0.1', DEVELOPMENT)).toBeUndefined();
    expect(addressRefusal('::1', DEVELOPMENT)).toBeUndefined();
    expect(addressRefusal('::ffff:127.0.0.1', DEVELOPMENT)).toBeUndefined();
    expect(addressRefusal('10.0.0.1', DEVELOPMENT)).toBe('private');
    expect(addressRefusal('169.254.169.254', DEVELOPMENT)).toBe('linkLocal');
  });

  it('holds plain http to loopback addresses', () => {
    expect(addressRefusal('127.0.0.1', { allowLoopback: true, loopbackOnly: true })).toBeUndefined();
    expect(addressRefusal('93.184.216.34', { allowLoopback: true, loopbackOnly: true })).toMatch(/^unicast/);
  });

  it('refuses every address of the private, loopback, link-local and CGNAT blocks, mapped into IPv6 or not', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const blocked = fc.oneof(
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `10.${b}.${c}.${d}`),
      fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => `172.${b}.${c}.${d}`),
      fc.tuple(octet, octet).map(([c, d]) => `192.168.${c}.${d}`),
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `127.${b}.${c}.${d}`),
      fc.tuple(octet, octet).map(([c, d]) => `169.254.${c}.${d}`),
      fc.tuple(fc.integer({ min: 64, max: 127 }), octet, octet).map(([b, c, d]) => `100.${b}.${c}.${d}`),
    );
    fc.assert(
      fc.property(blocked, (address) => {
        expect(addressRefusal(address, STRICT)).toBeDefined();
        expect(addressRefusal(`::ffff:${address}`, STRICT)).toBeDefined();
      }),
    );
  });

  it('never accepts an IPv6 address outside global unicast (2000::/3)', () => {
    const globalUnicast = ipaddr.IPv6.parseCIDR('2000::/3');
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        if (addressRefusal(address, STRICT) !== undefined) return;
        expect(addressRange(address)).toBe('unicast');
        expect(ipaddr.IPv6.parse(address).match(globalUnicast)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
