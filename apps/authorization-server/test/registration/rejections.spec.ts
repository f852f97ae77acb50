import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  startAuthorizationServer,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';
import { nativeClient, register } from './registration.helpers.js';

describe('dynamic client registration refuses, with its RFC 7591 error and no client stored,', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { RATE_LIMIT_REGISTER: '10000' } });
  });
  afterAll(async () => {
    await as?.close();
  });

  async function expectRefused(metadata: unknown, error: string, description: string): Promise<void> {
    const before = await as.prisma.client.count();
    const response = await register(as, metadata);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body.error).toBe(error);
    expect(response.body.error_description).toContain(description);
    expect(Object.keys(response.body).sort()).toEqual(['error', 'error_description']);
    expect(await as.prisma.client.count()).toBe(before);
  }

  const uris = (...redirectUris: unknown[]) => nativeClient({ redirect_uris: redirectUris });
  const web = (...redirectUris: string[]) =>
    nativeClient({ redirect_uris: redirectUris, application_type: 'web' });

  describe('a bad redirect URI with invalid_redirect_uri:', () => {
    const cases: [string, unknown, string][] = [
      ['none at all', nativeClient({ redirect_uris: undefined }), 'redirect_uris is required'],
      ['an empty list', uris(), 'redirect_uris is required'],
      ['11 of them', uris(...Array.from({ length: 11 }, (_, i) => `http://127.0.0.1/cb${i}`)), 'at most 10'],
      [
        'plain http on a public host',
        web('http://app.example/cb'),
        'must use https (http only for a loopback host)',
      ],
      ['a fragment', uris('http://127.0.0.1/cb#x'), 'must not contain a fragment'],
      ['an empty fragment', uris('http://127.0.0.1/cb#'), 'must not contain a fragment'],
      ['a wildcard host', web('https://*.example.com/cb'), 'wildcard'],
      ['a wildcard path', web('https://app.example/*'), 'wildcard'],
      ['javascript:', uris('javascript:alert(1)'), 'must not use the javascript:'],
      ['javascript: in disguise', uris(' \tJava\nScript:alert(1)'), 'must not use the javascript:'],
      ['data:', uris('data:text/html,<script>alert(1)</script>'), 'must not use the javascript:, data:'],
      ['a custom scheme', uris('com.example.notes:/callback'), 'must use one of the schemes https, http'],
      ['userinfo', web('https://app.example@evil.example/cb'), 'must not contain userinfo'],
      ['a relative URI', uris('/callback'), 'must be an absolute URL'],
      ['a non-string', uris(42), 'redirect_uris[0]'],
      [
        'one twice',
        uris('http://127.0.0.1/cb', 'http://127.0.0.1/cb'),
        'redirect_uris[1] is registered twice',
      ],
    ];
    it.each(cases)('%s', (_name, metadata, description) =>
      expectRefused(metadata, 'invalid_redirect_uri', description),
    );
  });

  describe('other bad metadata with invalid_client_metadata:', () => {
    const cases: [string, unknown, string][] = [
      [
        'web with a loopback redirect',
        nativeClient({ application_type: 'web' }),
        'application_type web takes https redirect_uris only',
      ],
      ['an unknown application_type', nativeClient({ application_type: 'desktop' }), 'application_type'],
      [
        'private_key_jwt without keys',
        nativeClient({ token_endpoint_auth_method: 'private_key_jwt' }),
        'needs jwks or jwks_uri',
      ],
      [
        'an unknown auth method',
        nativeClient({ token_endpoint_auth_method: 'tls_client_auth' }),
        'tls_client_auth is not supported',
      ],
      [
        'only the implicit grant',
        nativeClient({ grant_types: ['implicit'] }),
        'grant_types not supported: implicit (offered: authorization_code refresh_token)',
      ],
      [
        'only grants nobody offers',
        nativeClient({ grant_types: ['password', 'urn:ietf:params:oauth:grant-type:device_code'] }),
        'grant_types not supported: password',
      ],
      [
        'response_type token',
        nativeClient({ response_types: ['code', 'token'] }),
        'response_types not supported: token',
      ],
      ['code without authorization_code', nativeClient({ grant_types: ['refresh_token'] }), 'go together'],
      ['a malformed scope', nativeClient({ scope: 'notes:read  notes:write' }), 'scope'],
      ['a client_name that is not a string', nativeClient({ client_name: 7 }), 'client_name'],
      [
        'a client_name with a right-to-left override',
        nativeClient({ client_name: 'Notes\u202Eexe.ppa' }),
        'client_name: must not contain bidirectional control or zero-width characters (found U+202E)',
      ],
      [
        'a client_name with a zero-width space',
        nativeClient({ client_name: 'Note\u200Bs CLI' }),
        'client_name: must not contain bidirectional control or zero-width characters (found U+200B)',
      ],
      ['a javascript: logo_uri', nativeClient({ logo_uri: 'javascript:alert(1)' }), 'logo_uri'],
      [
        'jwks and jwks_uri together',
        nativeClient({ jwks: { keys: [] }, jwks_uri: 'https://app.example/jwks' }),
        'MUST NOT both',
      ],
      [
        'a private key in jwks',
        nativeClient({ jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' }] } }),
        'public keys only',
      ],
      ['an array instead of an object', [nativeClient()], 'must be a JSON object'],
      ['a string instead of an object', '"client"', 'must be a JSON object'],
      [
        'a constructor member',
        nativeClient({ constructor: 'Object' }),
        'member name not allowed: constructor',
      ],
      [
        'a nested prototype member',
        nativeClient({ jwks: { keys: [{ kty: 'EC', prototype: {} }] } }),
        'member name not allowed: prototype',
      ],
    ];
    it.each(cases)('%s', (_name, metadata, description) =>
      expectRefused(metadata, 'invalid_client_metadata', description),
    );
  });
});
