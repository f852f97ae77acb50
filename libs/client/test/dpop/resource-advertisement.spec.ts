// Which tokens a resource gets: DPoP-bound only where the resource accepts DPoP (its RFC 9728 metadata advertises
// it, or its 401 challenges with the DPoP scheme, RFC 9449 7.1) and the authorization server offers it; Bearer
// everywhere else, and `proof_of_possession_required` when the authorization server insists on a proof for a resource
// that does not accept one.
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  clientCredentialsExtension,
  CLIENT_CREDENTIALS_STRATEGY,
} from '@portcullis/extension-client-credentials';
import { dpopExtension } from '@portcullis/extension-dpop';
import { ExtensionRegistry } from '@portcullis/extensions';
import { decodeProtectedHeader } from 'jose';
import { findPortcullisError, type PortcullisError } from '../../src/errors/portcullis-error.js';
import type { AuthorizedFetchOptions } from '../../src/authorized-fetch.js';
import {
  FakeAuthorizationServer,
  type FakeAuthorizationServerOptions,
} from '../support/authorization-server.fixture.js';
import { clientFor } from '../support/client.js';
import {
  FakeResourceServer,
  rpc,
  type FakeResourceServerOptions,
} from '../support/resource-server.fixture.js';

const DPOP_CLIENT = ExtensionRegistry.compose([
  dpopExtension({ authorizationServer: false, resourceServer: false }),
]);

/** A resource that speaks Bearer only: no DPoP in its metadata, a `Bearer` challenge, bound tokens refused. */
const BEARER_ONLY: Partial<FakeResourceServerOptions> = { dpop: undefined };

/** A resource that accepts DPoP and says so in its metadata only: its challenges name `Bearer` alone. */
function advertisingInMetadata(extra: Record<string, unknown>): Partial<FakeResourceServerOptions> {
  return {
    dpop: {},
    challengeSchemes: ['Bearer'],
    metadata: (document) => ({ ...document, ...extra }),
  };
}

async function failure(request: Promise<Response>): Promise<PortcullisError | undefined> {
  return request.then(
    () => undefined,
    (error: unknown) => findPortcullisError(error),
  );
}

describe('DPoP only for resources that accept it (RFC 9728 2, RFC 9449 7.1)', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function stack(
    rs: Partial<FakeResourceServerOptions>,
    as: FakeAuthorizationServerOptions = { dpop: {} },
  ) {
    const authorizationServer = await FakeAuthorizationServer.start(as);
    const resourceServer = await FakeResourceServer.start({
      authorizationServers: () => [authorizationServer],
      ...rs,
    });
    servers.push(authorizationServer, resourceServer);
    return { as: authorizationServer, rs: resourceServer };
  }

  function client(rs: FakeResourceServer, options: Partial<AuthorizedFetchOptions> = {}) {
    return clientFor(rs, { extensions: DPOP_CLIENT, ...options });
  }

  it('asks a DPoP-offering server for Bearer tokens for a resource that does not advertise DPoP, and calls it with Bearer', async () => {
    const { as, rs } = await stack(BEARER_ONLY);
    const { fetch, store, progress } = client(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    expect(as.authorizationRequests[0]?.has('dpop_jkt')).toBe(false);
    expect(as.tokenRequests.map((request) => [request.status, request.dpop])).toEqual([[200, undefined]]);
    const [tokens] = await store.findTokens(rs.url);
    expect(tokens).toMatchObject({ tokenType: 'Bearer' });
    expect(tokens?.proofKey).toBeUndefined();
    expect(rs.requests.map((request) => [request.status, request.authorization?.split(' ')[0]])).toEqual([
      [401, undefined],
      [200, 'Bearer'],
    ]);
    expect(rs.requests.every((request) => request.dpop === undefined)).toBe(true);
    expect(progress.map((event) => event.message)).toContainEqual(
      `${as.issuer} offers DPoP; ${rs.url} does not advertise it, so Bearer tokens are requested`,
    );
    expect(await fetch.tokens()).toMatchObject({ tokenType: 'Bearer', keyBound: false });
  });

  it.each([
    ['dpop_signing_alg_values_supported', { dpop_signing_alg_values_supported: ['ES256'] }],
    ['dpop_bound_access_tokens_required', { dpop_bound_access_tokens_required: true }],
  ])(
    'binds the tokens of a resource whose metadata advertises DPoP with %s, though it challenges with Bearer only',
    async (_, extra) => {
      const { as, rs } = await stack(advertisingInMetadata(extra));
      const { fetch, store } = client(rs);

      expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

      expect(as.authorizationRequests[0]?.get('dpop_jkt')).toEqual(expect.any(String));
      expect((await store.findTokens(rs.url))[0]?.tokenType).toBe('DPoP');
      expect(rs.requests.at(-1)?.authorization?.startsWith('DPoP ')).toBe(true);
      expect(rs.dpop?.proofs.every((proof) => proof.error === undefined)).toBe(true);
    },
  );

  it('binds the tokens of a resource whose challenge uses the DPoP scheme, though its metadata says nothing of it', async () => {
    const { rs } = await stack({ dpop: {}, challengeSchemes: ['Bearer', 'DPoP'] });
    const { fetch, store } = client(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    expect((await store.findTokens(rs.url))[0]?.tokenType).toBe('DPoP');
  });

  it('signs with an algorithm the resource lists too when the authorization server offers several', async () => {
    // The server lists ES256 then EdDSA; the client prefers ES256, the resource takes EdDSA only.
    const { rs } = await stack(advertisingInMetadata({ dpop_signing_alg_values_supported: ['EdDSA'] }));
    const { fetch, store } = client(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    expect((await store.findTokens(rs.url))[0]?.proofKey).toMatchObject({ alg: 'EdDSA', kty: 'OKP' });
    expect(decodeProtectedHeader(rs.requests.at(-1)?.dpop ?? '').alg).toBe('EdDSA');
  });

  it('ends with proof_of_possession_required, naming both servers, when the authorization server requires DPoP for a resource that does not advertise it', async () => {
    const { as, rs } = await stack(BEARER_ONLY, { dpop: { required: true } });
    const { fetch, store } = client(rs);

    const error = await failure(fetch(rs.url, rpc('tools/list')));

    expect(error).toMatchObject({
      code: 'proof_of_possession_required',
      details: { issuer: as.issuer, resource: rs.url, scheme: 'DPoP' },
      authorizationServerError: { error: 'invalid_dpop_proof' },
    });
    expect(error?.message).toContain(as.issuer);
    expect(error?.message).toContain(rs.url);
    // One token request, without a proof, refused; no token stored, none sent to the resource.
    expect(as.tokenRequests.map((request) => [request.status, request.dpop])).toEqual([[400, undefined]]);
    expect(as.authorizationRequests).toHaveLength(1);
    expect(as.authorizationRequests[0]?.has('dpop_jkt')).toBe(false);
    expect(await store.listTokens()).toEqual([]);
    expect(rs.requests.map((request) => [request.status, request.authorization])).toEqual([[401, undefined]]);
  });

  it('ends with proof_of_possession_required for a grant strategy too (client credentials)', async () => {
    const { as, rs } = await stack(BEARER_ONLY, { dpop: { required: true }, clientCredentials: true });
    const { fetch, store } = client(rs, {
      extensions: ExtensionRegistry.compose([
        clientCredentialsExtension,
        dpopExtension({ authorizationServer: false, resourceServer: false }),
      ]),
      grantStrategy: CLIENT_CREDENTIALS_STRATEGY,
      clientCredentials: { clientId: 'machine', clientSecret: 'machine-secret', issuer: as.issuer },
    });

    const error = await failure(fetch(rs.url, rpc('tools/list')));

    expect(error).toMatchObject({
      code: 'proof_of_possession_required',
      details: { issuer: as.issuer, resource: rs.url },
    });
    expect(as.grants('client_credentials').map((request) => request.dpop)).toEqual([undefined]);
    expect(await store.listTokens()).toEqual([]);
    expect(rs.requests.map((request) => request.authorization)).toEqual([undefined]);
  });

  it('keeps the token endpoint error of a server that requires DPoP when proof of possession is switched off', async () => {
    const { as, rs } = await stack(BEARER_ONLY, { dpop: { required: true } });
    const { fetch, store } = client(rs, { proofOfPossession: false });

    const error = await failure(fetch(rs.url, rpc('tools/list')));

    expect(error).toMatchObject({
      code: 'token_request_failed',
      authorizationServerError: { error: 'invalid_dpop_proof' },
    });
    expect(as.tokenRequests).toHaveLength(1);
    expect(await store.listTokens()).toEqual([]);
  });
});
