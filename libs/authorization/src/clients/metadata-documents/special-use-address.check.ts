// Rules kept: MCP 2026-07-28 "Authorization Server Abuse Protection", the CIMD draft's "Server-Side Request Forgery":
// the server refuses to connect to special-use addresses (RFC 6890 registries): loopback (RFC 1122 3.2.1.3,
// RFC 4291 2.5.3), private (RFC 1918), link-local and cloud metadata (RFC 3927, RFC 4291 2.5.6), carrier-grade
// NAT (RFC 6598), unique local (RFC 4193), multicast, unspecified, broadcast, documentation and reserved ranges,
// and IPv6 forms that carry an IPv4 address (IPv4-mapped RFC 4291 2.5.5.2, NAT64 RFC 6052, 6to4 RFC 3056, Teredo
// RFC 4380). An IPv4-mapped address is judged by the IPv4 address it carries. Only IPv4 "unicast" and IPv6 global
// unicast (2000::/3, RFC 4291 2.4) that ipaddr.js files under no special range pass; loopback passes only in the
// development mode. Addresses are parsed by node:net and ipaddr.js, never by hand.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * What may be connected to.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-6
 */
export interface AddressPolicy {
  /** Development: loopback addresses (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104) are allowed. */
  readonly allowLoopback: boolean;
  /** Plain http in development: only loopback addresses are allowed. */
  readonly loopbackOnly?: boolean;
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * The special-use range an IP address falls in (`loopback`, `private`, `ipv4Mapped`, ...), or `unicast`.
 * `undefined` when the text is not an IP address.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6890
 */
export function addressRange(address: string): string | undefined {
  const literal = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIP(literal) === 0) return undefined;
  const ip = ipaddr.parse(literal);
  if (ip.kind() === 'ipv4') return (ip as ipaddr.IPv4).range();
  const v6 = ip as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'ipv4Mapped') {
    const mapped = v6.toIPv4Address().range();
    return mapped === 'loopback' ? 'loopback' : `ipv4Mapped(${mapped})`;
  }
  if (range === 'unicast' && !v6.match(GLOBAL_UNICAST_V6)) return 'notGlobalUnicast';
  return range;
}

/**
 * Why the authorization server must not connect to this address, or `undefined` when it may.
 *
 * @example addressRefusal('169.254.169.254', { allowLoopback: false }) // 'linkLocal'
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-6
 * @see https://www.rfc-editor.org/rfc/rfc6890
 */
export function addressRefusal(address: string, policy: AddressPolicy): string | undefined {
  const range = addressRange(address);
  if (range === undefined) return 'not an IP address';
  if (range === 'loopback') return policy.allowLoopback ? undefined : range;
  if (policy.loopbackOnly) return `${range} (plain http reaches loopback only)`;
  return range === 'unicast' ? undefined : range;
}
