import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { OAuthError } from '@portcullis/protocol';
import { getRevision } from '@portcullis/revisions';
import type { RegistrationContext } from './registration-check.js';
import { REGISTRATION_CHECKS } from './registration.checks.js';

/** Runs every check on a body; the settled context, or the OAuth error it was refused with. */
function run(body: unknown, revision = '2026-07-28'): RegistrationContext | OAuthError {
  const context: RegistrationContext = {
    body,
    revision: getRevision(revision),
    grantTypesSupported: ['authorization_code', 'refresh_token'],
  };
  try {
    for (const check of REGISTRATION_CHECKS) check.run(context);
    return context;
  } catch (error) {
    if (error instanceof OAuthError) return error;
    throw error;
  }
}

const native = (extra: Record<string, unknown> = {}) => ({
  redirect_uris: ['http://127.0.0.1/cb'],
  token_endpoint_auth_method: 'none',
  application_type: 'native',
  ...extra,
});

describe('the registration checks', () => {
  it('settle defaults from RFC 7591 2 for a minimal registration', () => {
    const context = run({ redirect_uris: ['https://app.example/cb'], application_type: 'web' });
    expect(context).not.toBeInstanceOf(OAuthError);
    expect(context).toMatchObject({
      grantTypes: ['authorization_code'],
      responseTypes: ['code'],
      tokenEndpointAuthMethod: 'client_secret_basic',
      applicationType: 'web',
      redirectUris: ['https://app.example/cb'],
    });
  });

  it('derive application_type only where the revision does not require it', () => {
    expect(run(native({ application_type: undefined }), '2025-06-18')).toMatchObject({
      applicationType: 'native',
    });
    expect(run(native({ application_type: undefined }))).toMatchObject({ code: 'invalid_client_metadata' });
  });

  it('accept only https or loopback http redirect URIs without fragment or wildcard, whatever the string', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.webUrl({ withFragments: true, withQueryParameters: true }), fc.string()),
        (uri) => {
          const result = run({ redirect_uris: [uri], token_endpoint_auth_method: 'none' }, '2025-06-18');
          if (result instanceof OAuthError) {
            expect(['invalid_redirect_uri', 'invalid_client_metadata']).toContain(result.code);
            return;
          }
          const url = new URL(uri);
          expect(
            url.protocol === 'https:' ||
              ['localhost', '[::1]'].includes(url.hostname) ||
              url.hostname.startsWith('127.'),
          ).toBe(true);
          expect(uri).not.toMatch(/[#*]/);
        },
      ),
    );
  });

  it('refuse a member named __proto__, constructor or prototype at any depth', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('__proto__', 'constructor', 'prototype'),
        fc.array(fc.string({ minLength: 1, maxLength: 5 }), { maxLength: 4 }),
        (name, path) => {
          // JSON.parse makes __proto__ an own member, as the parser of a request body does.
          let value = JSON.parse(`{${JSON.stringify(name)}: {"polluted": true}}`) as unknown;
          for (const key of path.reverse()) value = { [key]: value };
          const result = run({ ...native(), jwks: { keys: [] }, extra: value });
          expect(result).toBeInstanceOf(OAuthError);
          expect((result as OAuthError).code).toBe('invalid_client_metadata');
          expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
        },
      ),
    );
  });

  it('never let an arbitrary JSON body through without a redirect URI for the code grant', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => {
        const result = run(body);
        if (!(result instanceof OAuthError)) expect(result.redirectUris?.length).toBeGreaterThan(0);
      }),
    );
  });
});
