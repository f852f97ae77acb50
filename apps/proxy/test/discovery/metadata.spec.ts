import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '@portcullis/testing';
import { startProxy, type ProxyFixture } from '../support/proxy.fixture.js';

const RESOURCE = 'http://127.0.0.1:4199/mcp';

describe("the proxy's authorization server metadata", () => {
  let proxy: ProxyFixture;
  let upstreamIssuer: string;

  beforeAll(async () => {
    // The upstream is only contacted when someone signs in: the proxy serves its own surface without it.
    upstreamIssuer = `http://127.0.0.1:${await freePort()}`;
    proxy = await startProxy({
      port: await freePort(),
      upstream: { issuer: upstreamIssuer, clientId: 'portcullis-proxy', clientSecret: 'x'.repeat(32) },
      resource: RESOURCE,
      env: { CIMD_ENABLED: 'true' },
    });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('describes the proxy itself as the authorization server MCP clients see, with every endpoint of the library', async () => {
    const response = await fetch(`${proxy.issuer}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: proxy.issuer,
      authorization_endpoint: `${proxy.issuer}/authorize`,
      token_endpoint: `${proxy.issuer}/token`,
      registration_endpoint: `${proxy.issuer}/register`,
      introspection_endpoint: `${proxy.issuer}/introspect`,
      revocation_endpoint: `${proxy.issuer}/revoke`,
      jwks_uri: `${proxy.issuer}/jwks`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    // Nothing of the upstream leaks into it.
    expect(JSON.stringify(metadata)).not.toContain(upstreamIssuer);
    const jwks = (await (await fetch(`${proxy.issuer}/jwks`)).json()) as { keys: unknown[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
  });
});
