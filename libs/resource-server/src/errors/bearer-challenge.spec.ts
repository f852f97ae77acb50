import { describe, expect, it } from '@jest/globals';
import { defineExtension, ExtensionRegistry } from '@portcullis/extensions';
import { OAuthError, parseWwwAuthenticate } from '@portcullis/protocol';
import { getRevision } from '@portcullis/revisions';
import { bearerChallenge, type BearerChallengeInput } from './bearer-challenge.js';

const METADATA = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const BASE: BearerChallengeInput = {
  status: 401,
  requiredScopes: [],
  resource: 'https://mcp.example.com/mcp',
  metadataUrl: METADATA,
  scopesSupported: ['notes:read', 'notes:write'],
  revision: getRevision('2026-07-28'),
  extensions: ExtensionRegistry.compose([]),
};

const withProof = ExtensionRegistry.compose([
  defineExtension({
    id: 'com.example/proof',
    version: '1.0.0',
    resourceServer: {
      proofOfPossession: {
        scheme: 'DPoP',
        challengeParameters: { algs: 'ES256 EdDSA' },
        algorithms: ['ES256', 'EdDSA'],
        required: false,
        binds: (confirmation) => typeof confirmation['jkt'] === 'string',
        verifyRequest: async () => undefined,
      },
    },
  }),
]);

describe('bearerChallenge', () => {
  it('answers a request without credentials with resource_metadata and scope, and no error', () => {
    expect(bearerChallenge(BASE)).toBe(
      `Bearer resource_metadata="${METADATA}", scope="notes:read notes:write"`,
    );
  });

  it('names the scopes the operation needs rather than scopes_supported when there are some', () => {
    const challenge = bearerChallenge({ ...BASE, requiredScopes: ['notes:write'] });
    expect(parseWwwAuthenticate(challenge!)[0]?.params['scope']).toBe('notes:write');
  });

  it('puts every needed scope of an insufficient_scope refusal in one challenge, with the metadata URL', () => {
    const challenge = bearerChallenge({
      ...BASE,
      status: 403,
      error: new OAuthError('insufficient_scope', 'needs more'),
      requiredScopes: ['notes:read', 'notes:write'],
    });
    expect(challenge).toBe(
      `Bearer error="insufficient_scope", scope="notes:read notes:write", resource_metadata="${METADATA}", error_description="needs more"`,
    );
  });

  it('never challenges for offline_access', () => {
    const challenge = bearerChallenge({
      ...BASE,
      status: 403,
      error: new OAuthError('insufficient_scope'),
      requiredScopes: ['offline_access', 'a'],
    });
    expect(parseWwwAuthenticate(challenge!)[0]?.params['scope']).toBe('a');
  });

  it('leaves scope out under 2025-06-18 but always keeps resource_metadata', () => {
    const revision = getRevision('2025-06-18');
    const missing = parseWwwAuthenticate(bearerChallenge({ ...BASE, revision })!)[0]!;
    expect(missing.params).toEqual({ resource_metadata: METADATA });
    const forbidden = parseWwwAuthenticate(
      bearerChallenge({
        ...BASE,
        revision,
        status: 403,
        error: new OAuthError('insufficient_scope'),
        requiredScopes: ['a'],
      })!,
    )[0]!;
    expect(forbidden.params).toEqual({ error: 'insufficient_scope', resource_metadata: METADATA });
  });

  it('gives a 400 invalid_request its error and resource_metadata but no scope', () => {
    const challenge = bearerChallenge({
      ...BASE,
      status: 400,
      error: new OAuthError('invalid_request', 'x'),
    });
    expect(parseWwwAuthenticate(challenge!)[0]?.params).toEqual({
      error: 'invalid_request',
      resource_metadata: METADATA,
      error_description: 'x',
    });
  });

  it('has no challenge for statuses RFC 6750 gives none', () => {
    expect(
      bearerChallenge({ ...BASE, status: 503, error: new OAuthError('temporarily_unavailable') }),
    ).toBeUndefined();
  });

  it('quotes and escapes an extension parameter and passes it the challenge context', () => {
    const seen: unknown[] = [];
    const extensions = ExtensionRegistry.compose([
      defineExtension({
        id: 'com.example/realm-hint',
        version: '1.0.0',
        resourceServer: {
          challengeParameters: (context) => {
            seen.push(context);
            return { hint: 'say "hi"' };
          },
        },
      }),
    ]);
    const challenge = bearerChallenge({
      ...BASE,
      status: 401,
      error: new OAuthError('invalid_token'),
      extensions,
    });
    expect(challenge).toContain('hint="say \\"hi\\""');
    expect(parseWwwAuthenticate(challenge!)[0]?.params['hint']).toBe('say "hi"');
    expect(seen).toEqual([
      {
        status: 401,
        error: 'invalid_token',
        resource: 'https://mcp.example.com/mcp',
        revision: '2026-07-28',
      },
    ]);
  });

  describe('with a proof-of-possession extension composed (RFC 9449 Section 7.1)', () => {
    it('lists the Bearer challenge first, then the scheme’s, both with resource_metadata and scope', () => {
      const header = bearerChallenge({ ...BASE, extensions: withProof })!;
      expect(header).toBe(
        `Bearer resource_metadata="${METADATA}", scope="notes:read notes:write", ` +
          `DPoP algs="ES256 EdDSA", resource_metadata="${METADATA}", scope="notes:read notes:write"`,
      );
    });

    it('puts the error on the challenge of the scheme the request used', () => {
      const error = new OAuthError('invalid_dpop_proof', 'bad proof');
      const [bearer, dpop] = parseWwwAuthenticate(
        bearerChallenge({ ...BASE, error, extensions: withProof, presentedWith: 'proof' })!,
      );
      expect(bearer?.params).toEqual({ resource_metadata: METADATA, scope: 'notes:read notes:write' });
      expect(dpop?.params).toEqual({
        error: 'invalid_dpop_proof',
        algs: 'ES256 EdDSA',
        scope: 'notes:read notes:write',
        resource_metadata: METADATA,
        error_description: 'bad proof',
      });
      const [asBearer, other] = parseWwwAuthenticate(
        bearerChallenge({ ...BASE, error: new OAuthError('invalid_token'), extensions: withProof })!,
      );
      expect(asBearer?.params['error']).toBe('invalid_token');
      expect(other?.params['error']).toBeUndefined();
    });

    it('names the needed scopes of an insufficient_scope refusal on both challenges', () => {
      const challenges = parseWwwAuthenticate(
        bearerChallenge({
          ...BASE,
          status: 403,
          error: new OAuthError('insufficient_scope'),
          requiredScopes: ['notes:write'],
          extensions: withProof,
          presentedWith: 'proof',
        })!,
      );
      expect(challenges.map((challenge) => challenge.params['scope'])).toEqual([
        'notes:write',
        'notes:write',
      ]);
      expect(challenges.map((challenge) => challenge.params['error'])).toEqual([
        undefined,
        'insufficient_scope',
      ]);
    });
  });
});
