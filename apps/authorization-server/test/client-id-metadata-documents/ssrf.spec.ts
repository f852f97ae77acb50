import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type AuthorizationServerFixture } from '../support/authorization-server.fixture.js';
import {
  captureWarnings,
  refusals,
  expectClientRefused,
  startCimdAuthorizationServer,
  tableLookup,
  type CapturedWarning,
} from '../support/cimd-authorization-server.js';
import { startLoopbackCanary, type LoopbackCanary } from '../support/cimd-canary.js';
import { makeTestCertificates } from '@portcullis/testing';

const REDIRECT_URI = 'http://127.0.0.1/callback';

describe('client ID metadata documents never reach special-use addresses (CIMD_ALLOW_LOOPBACK off)', () => {
  let canary: LoopbackCanary;
  let as: AuthorizationServerFixture;
  let warnings: CapturedWarning[];
  const lookup = tableLookup({
    'loopback.test': ['127.0.0.1'],
    'private.test': ['10.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'ipv6-loopback.test': ['::1'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'cgnat.test': ['100.64.0.1'],
    'ula.test': ['fd00::1'],
    'rebind.test': ['93.184.216.34', '127.0.0.1'],
    localhost: ['127.0.0.1', '::1'],
  });
  beforeAll(async () => {
    canary = await startLoopbackCanary();
    as = await startCimdAuthorizationServer({ fetchOptions: { lookup, ca: makeTestCertificates().ca } });
    warnings = captureWarnings();
  });
  afterAll(async () => {
    await as?.close();
    await canary?.close();
  });

  /** The error page at `/authorize`, `invalid_client` at `/token`, nothing written, and the canary untouched. */
  async function expectUnreachable(clientId: string): Promise<void> {
    await expectClientRefused(as, clientId, REDIRECT_URI);
    expect(canary.connections).toBe(0);
    expect(canary.bytes).toBe(0);
  }

  it.each([
    ['127.0.0.1', 'loopback.test', 'loopback'],
    ['10.0.0.1', 'private.test', 'private'],
    ['169.254.169.254', 'metadata.test', 'linkLocal'],
    ['::1', 'ipv6-loopback.test', 'loopback'],
    ['::ffff:127.0.0.1', 'mapped.test', 'loopback'],
    ['100.64.0.1', 'cgnat.test', 'carrierGradeNat'],
    ['fd00::1', 'ula.test', 'uniqueLocal'],
    ['a public address and 127.0.0.1 (rebinding)', 'rebind.test', 'loopback'],
    ['127.0.0.1 and ::1', 'localhost', 'loopback'],
  ])('refuses a host resolving to %s', async (_name, host, range) => {
    const clientId = `https://${host}:${canary.port}/oauth/client.json`;
    await expectUnreachable(clientId);
    const logged = refusals(warnings, clientId);
    expect(logged.map((refusal) => refusal.reason)).toEqual(['address_refused', 'address_refused']);
    expect(logged[0]!.detail).toContain(`a ${range} address`);
  });

  it.each([
    ['a dotted loopback literal', '127.0.0.1'],
    ['a decimal integer host', '2130706433'],
    ['a hexadecimal host', '0x7f.1'],
    ['an octal host', '017700000001'],
    ['an IPv6 loopback literal', '[::1]'],
    ['an IPv4-mapped IPv6 literal', '[::ffff:127.0.0.1]'],
    ['an unspecified address', '0.0.0.0'],
  ])('refuses %s before any connection', async (_name, host) => {
    const clientId = `https://${host}:${canary.port}/oauth/client.json`;
    await expectUnreachable(clientId);
    expect(refusals(warnings, clientId).map((refusal) => refusal.reason)).toEqual([
      'address_refused',
      'address_refused',
    ]);
  });

  it('refuses a host that does not resolve', async () => {
    const clientId = `https://nowhere.test:${canary.port}/oauth/client.json`;
    await expectUnreachable(clientId);
    expect(refusals(warnings, clientId).map((refusal) => refusal.reason)).toEqual([
      'dns_failed',
      'dns_failed',
    ]);
  });

  it('treats an http client_id as an unknown client without fetching it', async () => {
    const clientId = `http://localhost:${canary.port}/oauth/client.json`;
    const asked = lookup.asked.length;
    await expectUnreachable(clientId);
    expect(lookup.asked.length).toBe(asked);
  });
});
