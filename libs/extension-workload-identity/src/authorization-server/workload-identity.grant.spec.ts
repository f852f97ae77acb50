import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  ClientEstablishingGrantRequest,
  GrantContext,
  IssueTokensRequest,
  JsonObject,
} from '@portcullis/extensions';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { subjectMatcher } from './subject-pattern.js';
import { TrustedWorkloadIssuersSchema, type TrustedWorkloadIssuer } from './trusted-workload-issuers.js';
import { workloadIdentityGrant } from './workload-identity.grant.js';

const AS = 'https://as.example.com';
const TOKEN_ENDPOINT = `${AS}/token`;
const K8S = 'https://k8s.example.com';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let key: CryptoKey;
let jwk: JWK;
let jwksServer: Server;
let jwksUri: string;
let jwksRequests = 0;
const jwksAsked: Array<[string, string | undefined]> = [];

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  key = pair.privateKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k8s-1', alg: 'ES256' };
  jwksServer = createServer((_request, response) => {
    jwksRequests += 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const address = jwksServer.address();
  jwksUri = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/jwks`;
});
afterAll(async () => {
  await new Promise((resolve) => jwksServer.close(resolve));
});

function issuer(overrides: Partial<TrustedWorkloadIssuer> = {}): TrustedWorkloadIssuer {
  return {
    issuer: K8S,
    jwks: { keys: [{ ...jwk, kty: 'EC' }] },
    subjects: [
      { subject: 'system:serviceaccount:prod:*', client_id: 'prod-agents', scope: 'notes:read notes:write' },
      { subject: 'system:serviceaccount:ops:backup', client_id: 'backup', scope: 'notes:read' },
    ],
    ...overrides,
  } as TrustedWorkloadIssuer;
}

interface Workload {
  readonly iss?: string;
  readonly sub?: string;
  readonly aud?: string | string[];
  readonly exp?: number;
  readonly iat?: number;
  readonly jti?: string | null;
  readonly typ?: string;
  readonly key?: CryptoKey;
}

async function workloadJwt(options: Workload = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'k8s-1', ...(options.typ ? { typ: options.typ } : {}) })
    .setIssuer(options.iss ?? K8S)
    .setSubject(options.sub ?? 'system:serviceaccount:prod:agent')
    .setAudience(options.aud ?? AS)
    .setIssuedAt(options.iat ?? now)
    .setExpirationTime(options.exp ?? now + 600);
  if (options.jti !== null) jwt.setJti(options.jti ?? randomUUID());
  return jwt.sign(options.key ?? key);
}

function unsigned(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(claims)}.${header['alg'] === 'none' ? '' : 'c2lnbmF0dXJl'}`;
}

function harness(issuers: readonly TrustedWorkloadIssuer[] = [issuer()], host: Partial<GrantContext> = {}) {
  const registration = workloadIdentityGrant(issuers);
  const used = new Set<string>();
  const issued: IssueTokensRequest[] = [];
  const context: GrantContext = {
    issuer: AS,
    revision: '2026-07-28',
    tokenEndpoint: TOKEN_ENDPOINT,
    issueTokens: async (request) => {
      issued.push(request);
      return { access_token: 'at', token_type: 'Bearer', scope: request.scope.join(' ') };
    },
    useOnce: async (iss, jti) => {
      if (used.has(`${iss} ${jti}`)) return false;
      used.add(`${iss} ${jti}`);
      return true;
    },
    signJwt: async () => {
      throw new Error('not here');
    },
    verifyIdToken: async () => undefined,
    // The host's fetcher (SSRF guard, limits, cache) stands here as a plain fetch of the document.
    fetchJwks: async (uri, kid) => {
      jwksAsked.push([uri, kid]);
      return (await (await fetch(uri)).json()) as JsonObject;
    },
    ...host,
  };
  const request = (
    params: Record<string, string>,
    client?: ClientEstablishingGrantRequest['client'],
  ): ClientEstablishingGrantRequest => ({
    grantType: JWT_BEARER,
    params,
    resources: ['https://mcp.example.com/mcp'],
    client,
  });
  const redeem = (params: Record<string, string>, client?: ClientEstablishingGrantRequest['client']) =>
    registration.handle(request(params, client), context);
  return { registration, used, issued, redeem, request };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  return (error as { code?: string } | undefined)?.code ?? 'no error';
}

describe('workloadIdentityGrant', () => {
  it('issues a token to the rule’s client, for the workload namespaced by its issuer, without a refresh token', async () => {
    const { redeem, issued } = harness();
    await redeem({ assertion: await workloadJwt(), scope: 'notes:read' });
    expect(issued).toEqual([
      {
        subject: `${K8S}#system:serviceaccount:prod:agent`,
        clientId: 'prod-agents',
        scope: ['notes:read'],
        resources: ['https://mcp.example.com/mcp'],
        refreshToken: false,
      },
    ]);
  });

  it('gives the rule’s whole scope when none is requested, and takes the first rule that matches', async () => {
    const { redeem, issued } = harness();
    await redeem({ assertion: await workloadJwt() });
    await redeem({ assertion: await workloadJwt({ sub: 'system:serviceaccount:ops:backup' }) });
    expect(issued.map(({ clientId, scope }) => [clientId, scope])).toEqual([
      ['prod-agents', ['notes:read', 'notes:write']],
      ['backup', ['notes:read']],
    ]);
  });

  it('accepts the token endpoint as audience by default, and only the configured audiences when given', async () => {
    expect(
      (await harness().redeem({ assertion: await workloadJwt({ aud: TOKEN_ENDPOINT }) })).access_token,
    ).toBe('at');
    const custom = harness([issuer({ audiences: ['mcp-as'] })]);
    expect(await refusal(custom.redeem({ assertion: await workloadJwt() }))).toBe('invalid_grant');
    expect((await custom.redeem({ assertion: await workloadJwt({ aud: 'mcp-as' }) })).access_token).toBe(
      'at',
    );
  });

  it('gets the issuer’s keys at its jwks_uri from the host, naming the kid it needs', async () => {
    const remote = harness([issuer({ jwks: undefined, jwks_uri: jwksUri })]);
    const before = jwksRequests;
    jwksAsked.length = 0;
    expect((await remote.redeem({ assertion: await workloadJwt() })).access_token).toBe('at');
    expect(jwksRequests).toBe(before + 1);
    expect(jwksAsked).toEqual([[jwksUri, 'k8s-1']]);
  });

  it('accepts the same workload JWT again (platforms reuse a token until they rotate it), recording nothing', async () => {
    const { redeem, used, issued } = harness();
    const assertion = await workloadJwt();
    await redeem({ assertion });
    await redeem({ assertion });
    expect([used.size, issued.length]).toEqual([0, 2]);
  });

  it('accepts a JWT without jti, which nothing records', async () => {
    const { redeem, used } = harness();
    await redeem({ assertion: await workloadJwt({ jti: null }) });
    expect(used.size).toBe(0);
  });

  describe('refuses, using nothing up and issuing nothing,', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const cases: ReadonlyArray<[string, () => Promise<Record<string, string>>, string]> = [
      ['no assertion', async () => ({}), 'invalid_request'],
      ['an assertion that is not a JWT', async () => ({ assertion: 'not-a-jwt' }), 'invalid_grant'],
      [
        'an untrusted issuer',
        async () => ({ assertion: await workloadJwt({ iss: 'https://rogue.example' }) }),
        'invalid_grant',
      ],
      [
        'a key the issuer does not hold',
        async () => ({ assertion: await workloadJwt({ key: (await generateKeyPair('ES256')).privateKey }) }),
        'invalid_grant',
      ],
      [
        'a wrong audience',
        async () => ({ assertion: await workloadJwt({ aud: 'https://other.example' }) }),
        'invalid_grant',
      ],
      [
        'an expired JWT',
        async () => ({ assertion: await workloadJwt({ iat: now() - 600, exp: now() - 120 }) }),
        'invalid_grant',
      ],
      [
        'a lifetime beyond the issuer’s maximum',
        async () => ({ assertion: await workloadJwt({ exp: now() + 7200 }) }),
        'invalid_grant',
      ],
      [
        'an iat in the future',
        async () => ({ assertion: await workloadJwt({ iat: now() + 300, exp: now() + 600 }) }),
        'invalid_grant',
      ],
      [
        'alg none',
        async () => ({
          assertion: unsigned(
            { alg: 'none' },
            { iss: K8S, sub: 'system:serviceaccount:prod:a', aud: AS, exp: now() + 60 },
          ),
        }),
        'invalid_grant',
      ],
      [
        'alg HS256',
        async () => ({
          assertion: unsigned(
            { alg: 'HS256' },
            { iss: K8S, sub: 'system:serviceaccount:prod:a', aud: AS, exp: now() + 60 },
          ),
        }),
        'invalid_grant',
      ],
      [
        'an ID-JAG',
        async () => ({ assertion: await workloadJwt({ typ: 'oauth-id-jag+jwt' }) }),
        'invalid_grant',
      ],
      [
        'a subject outside every rule',
        async () => ({ assertion: await workloadJwt({ sub: 'system:serviceaccount:dev:agent' }) }),
        'unauthorized_client',
      ],
      [
        'a subject that only matches a pattern unanchored',
        async () => ({ assertion: await workloadJwt({ sub: 'x-system:serviceaccount:prod:agent' }) }),
        'unauthorized_client',
      ],
      [
        'a scope beyond the rule’s',
        async () => ({ assertion: await workloadJwt(), scope: 'notes:read admin' }),
        'invalid_scope',
      ],
      [
        'a client_id that is not the rule’s client',
        async () => ({ assertion: await workloadJwt(), client_id: 'someone-else' }),
        'invalid_grant',
      ],
    ];

    it.each(cases)('%s', async (_name, params, code) => {
      const { redeem, used, issued } = harness();
      expect(await refusal(redeem(await params()))).toBe(code);
      expect(used.size).toBe(0);
      expect(issued).toEqual([]);
    });

    it('an authenticated client that is not the rule’s client', async () => {
      const { redeem, used, issued } = harness();
      const other = { clientId: 'dcr-client', metadata: {}, authenticationMethod: 'client_secret_basic' };
      expect(await refusal(redeem({ assertion: await workloadJwt() }, other))).toBe('invalid_grant');
      expect([used.size, issued]).toEqual([0, []]);
    });

    it('a replayed jti from an issuer whose assertions are single-use, and one without jti', async () => {
      const { redeem, issued } = harness([issuer({ single_use: true })]);
      expect(await refusal(redeem({ assertion: await workloadJwt({ jti: null }) }))).toBe('invalid_grant');
      const assertion = await workloadJwt();
      await redeem({ assertion });
      expect(await refusal(redeem({ assertion }))).toBe('invalid_grant');
      expect(issued).toHaveLength(1);
    });

    it('an issuer whose jwks_uri cannot be reached, failing closed', async () => {
      const closed = harness([issuer({ jwks: undefined, jwks_uri: 'http://127.0.0.1:9/jwks' })]);
      expect(await refusal(closed.redeem({ assertion: await workloadJwt() }))).toBe('invalid_grant');
      expect([closed.used.size, closed.issued]).toEqual([0, []]);
    });

    it('an issuer with a jwks_uri, on a host that fetches no key sets, failing closed', async () => {
      const before = jwksRequests;
      const closed = harness([issuer({ jwks: undefined, jwks_uri: jwksUri })], { fetchJwks: undefined });
      expect(await refusal(closed.redeem({ assertion: await workloadJwt() }))).toBe('invalid_grant');
      expect([closed.used.size, closed.issued, jwksRequests]).toEqual([0, [], before]);
    });
  });

  describe('accepts, among the registrations sharing the grant type,', () => {
    it('a JWT from a trusted issuer that is not an ID-JAG, and nothing else', async () => {
      const { registration, request } = harness();
      const accepts = registration.accepts as NonNullable<typeof registration.accepts>;
      expect(accepts(request({ assertion: await workloadJwt() }))).toBe(true);
      expect(accepts(request({ assertion: await workloadJwt({ iss: 'https://rogue.example' }) }))).toBe(
        false,
      );
      expect(accepts(request({ assertion: await workloadJwt({ typ: 'oauth-id-jag+jwt' }) }))).toBe(false);
      expect(
        accepts(request({ assertion: await workloadJwt({ typ: 'application/OAUTH-ID-JAG+JWT' }) })),
      ).toBe(false);
      expect(accepts(request({ assertion: 'garbage' }))).toBe(false);
      expect(accepts(request({}))).toBe(false);
    });
  });
});

describe('subjectMatcher', () => {
  it.each([
    ['system:serviceaccount:prod:*', 'system:serviceaccount:prod:agent', true],
    ['system:serviceaccount:prod:*', 'system:serviceaccount:prod-2:agent', false],
    ['system:serviceaccount:prod:*', 'xsystem:serviceaccount:prod:agent', false],
    ['spiffe://example.org/ns/*/sa/agent', 'spiffe://example.org/ns/prod/sa/agent', true],
    ['spiffe://example.org/ns/*/sa/agent', 'spiffe://example.org/ns/prod/sa/agent2', false],
    ['exact.subject', 'exact.subject', true],
    ['exact.subject', 'exactXsubject', false],
    ['a.c*', 'abc', false],
    ['*', 'anything at all', true],
  ])('%s against %s is %s', (pattern, subject, expected) => {
    expect(subjectMatcher(pattern)(subject)).toBe(expected);
  });
});

describe('TrustedWorkloadIssuersSchema', () => {
  const valid = {
    issuer: K8S,
    jwks_uri: `${K8S}/jwks`,
    subjects: [{ subject: 'a', client_id: 'c', scope: 's' }],
  };

  it('reads a JSON list of trusted issuers, and none when unset', () => {
    expect(TrustedWorkloadIssuersSchema.parse(undefined)).toEqual([]);
    expect(TrustedWorkloadIssuersSchema.parse(JSON.stringify([valid]))).toEqual([valid]);
  });

  it.each([
    ['not JSON', 'nope'],
    ['no keys', JSON.stringify([{ ...valid, jwks_uri: undefined }])],
    ['both key sources', JSON.stringify([{ ...valid, jwks: { keys: [{ kty: 'EC' }] } }])],
    ['a plain http issuer', JSON.stringify([{ ...valid, issuer: 'http://k8s.example.com' }])],
    ['no subject rules', JSON.stringify([{ ...valid, subjects: [] }])],
    [
      'a URL client_id',
      JSON.stringify([
        { ...valid, subjects: [{ subject: 'a', client_id: 'https://c.example/doc', scope: 's' }] },
      ]),
    ],
    [
      'a malformed scope',
      JSON.stringify([{ ...valid, subjects: [{ subject: 'a', client_id: 'c', scope: 'a  b' }] }]),
    ],
    [
      'a private key',
      JSON.stringify([{ ...valid, jwks_uri: undefined, jwks: { keys: [{ kty: 'EC', d: 'x' }] } }]),
    ],
    ['an unknown member', JSON.stringify([{ ...valid, audience: 'x' }])],
    ['one issuer twice', JSON.stringify([valid, valid])],
  ])('refuses %s', (_name, text) => {
    expect(TrustedWorkloadIssuersSchema.safeParse(text).success).toBe(false);
  });
});
