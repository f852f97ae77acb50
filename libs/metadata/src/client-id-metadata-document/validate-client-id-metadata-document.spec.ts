import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { validateClientIdMetadataDocument } from './validate-client-id-metadata-document.js';
import type { ClientIdMetadataDocumentRule } from './violation.js';

const URL = 'https://app.example.com/oauth/client-metadata.json';

// The MCP specification's example document, which breaks no rule.
const valid = (): Record<string, unknown> => ({
  client_id: URL,
  client_name: 'Example MCP Client',
  client_uri: 'https://app.example.com',
  logo_uri: 'https://app.example.com/logo.png',
  redirect_uris: ['http://127.0.0.1:3000/callback', 'http://localhost:3000/callback'],
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

type Change = (document: Record<string, unknown>) => void;
const set =
  (member: string, value: unknown): Change =>
  (document) => {
    document[member] = value;
  };
const remove =
  (member: string): Change =>
  (document) => {
    delete document[member];
  };

function rulesOf(doc: unknown, url = URL): ClientIdMetadataDocumentRule[] {
  const result = validateClientIdMetadataDocument(doc, url);
  return result.ok ? [] : result.errors.map((error) => error.rule);
}

function changed(...changes: Change[]): Record<string, unknown> {
  const document = valid();
  for (const change of changes) change(document);
  return document;
}

const PRIVATE_RSA = { kty: 'RSA', n: 'n', e: 'AQAB', d: 'd', p: 'p', q: 'q', dp: 'dp', dq: 'dq', qi: 'qi' };

describe('validateClientIdMetadataDocument', () => {
  it('accepts the MCP example and returns it parsed, unknown members kept', () => {
    const document = { ...valid(), software_version: '1.2.3', 'client_name#fr': 'Client MCP' };
    const result = validateClientIdMetadataDocument(document, URL);
    expect(result).toEqual({ ok: true, document });
  });

  it.each([
    [
      'private_key_jwt with jwks_uri',
      [
        set('token_endpoint_auth_method', 'private_key_jwt'),
        set('jwks_uri', 'https://app.example.com/jwks.json'),
      ],
    ],
    [
      'private_key_jwt with public keys',
      [
        set('token_endpoint_auth_method', 'private_key_jwt'),
        set('jwks', { keys: [{ kty: 'RSA', n: 'n', e: 'AQAB' }] }),
      ],
    ],
    ['an https redirect URI', [set('redirect_uris', ['https://app.example.com/callback'])]],
    ['an IPv6 loopback redirect URI', [set('redirect_uris', ['http://[::1]:8080/callback'])]],
    ['no token_endpoint_auth_method', [remove('token_endpoint_auth_method')]],
    ['a query in the client_id URL', [set('client_id', `${URL}?v=2`)]],
  ] as const)('accepts %s', (_case, changes) => {
    const document = changed(...changes);
    const url = document['client_id'] as string;
    expect(validateClientIdMetadataDocument(document, url)).toEqual({ ok: true, document });
  });

  it.each([null, undefined, [], [valid()], 'a string', 42, true])(
    'rejects %j as not a JSON object',
    (value) => {
      expect(rulesOf(value)).toEqual(['document_not_object']);
    },
  );

  it.each<[string, Change[], ClientIdMetadataDocumentRule[]]>([
    ['a missing client_id', [remove('client_id')], ['client_id_missing']],
    [
      'another client_id',
      [set('client_id', 'https://evil.example/oauth/client-metadata.json')],
      ['client_id_mismatch'],
    ],
    [
      'a client_id with an explicit default port',
      [set('client_id', 'https://app.example.com:443/oauth/client-metadata.json')],
      ['client_id_mismatch'],
    ],
    [
      'a client_id with an uppercase host',
      [set('client_id', 'https://APP.example.com/oauth/client-metadata.json')],
      ['client_id_mismatch'],
    ],
    ['a client_id with a trailing slash', [set('client_id', `${URL}/`)], ['client_id_mismatch']],
    ['a client_id that is a number', [set('client_id', 42)], ['client_id_mismatch']],
    ['a missing client_name', [remove('client_name')], ['client_name_missing']],
    ['a blank client_name', [set('client_name', '   ')], ['client_name_missing']],
    ['a client_name that is not a string', [set('client_name', { en: 'x' })], ['client_name_missing']],
    ['missing redirect_uris', [remove('redirect_uris')], ['redirect_uris_missing']],
    ['empty redirect_uris', [set('redirect_uris', [])], ['redirect_uris_missing']],
    [
      'redirect_uris that is a string',
      [set('redirect_uris', 'https://app.example.com/cb')],
      ['redirect_uris_missing'],
    ],
    [
      'a plain-http redirect on a public host',
      [set('redirect_uris', ['http://app.example.com/cb'])],
      ['redirect_uri_insecure'],
    ],
    ['a javascript: redirect', [set('redirect_uris', ['javascript:alert(1)'])], ['redirect_uri_insecure']],
    [
      'a disguised javascript: redirect',
      [set('redirect_uris', ['\tJaVa\nScript:alert(1)'])],
      ['redirect_uri_insecure'],
    ],
    ['a data: redirect', [set('redirect_uris', ['data:text/html,x'])], ['redirect_uri_insecure']],
    [
      'a custom-scheme redirect',
      [set('redirect_uris', ['com.example.app:/callback'])],
      ['redirect_uri_insecure'],
    ],
    [
      'a redirect with a fragment',
      [set('redirect_uris', ['https://app.example.com/cb#x'])],
      ['redirect_uri_fragment'],
    ],
    [
      'a redirect with an empty fragment',
      [set('redirect_uris', ['https://app.example.com/cb#'])],
      ['redirect_uri_fragment'],
    ],
    [
      'an insecure redirect with a fragment',
      [set('redirect_uris', ['http://app.example.com/cb#'])],
      ['redirect_uri_insecure', 'redirect_uri_fragment'],
    ],
    [
      'a redirect that is not a string',
      [set('redirect_uris', ['https://app.example.com/cb', 7])],
      ['redirect_uri_invalid'],
    ],
    ['a redirect without a host', [set('redirect_uris', ['https:///cb'])], ['redirect_uri_invalid']],
    ['a relative redirect', [set('redirect_uris', ['/cb'])], ['redirect_uri_invalid']],
    ['a client_secret', [set('client_secret', 'cf136dc3c1fc93f31185e5885805d')], ['client_secret_forbidden']],
    ['a client_secret_expires_at of 0', [set('client_secret_expires_at', 0)], ['client_secret_forbidden']],
    ['a null client_secret', [set('client_secret', null)], ['client_secret_forbidden']],
    [
      'both secret members',
      [set('client_secret', 's'), set('client_secret_expires_at', 0)],
      ['client_secret_forbidden', 'client_secret_forbidden'],
    ],
    [
      'client_secret_basic',
      [set('token_endpoint_auth_method', 'client_secret_basic')],
      ['shared_secret_auth_method'],
    ],
    [
      'client_secret_post',
      [set('token_endpoint_auth_method', 'client_secret_post')],
      ['shared_secret_auth_method'],
    ],
    [
      'client_secret_jwt',
      [set('token_endpoint_auth_method', 'client_secret_jwt')],
      ['shared_secret_auth_method'],
    ],
    ['an RSA private key in jwks', [set('jwks', { keys: [PRIVATE_RSA] })], ['jwks_private_key']],
    [
      'a symmetric key in jwks',
      [set('jwks', { keys: [{ kty: 'oct', k: 'GawgguFyGrWKav7AX4VKUg' }] })],
      ['jwks_private_key'],
    ],
    [
      'an OKP private key in jwks',
      [set('jwks', { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'x', d: 'd' }] })],
      ['jwks_private_key'],
    ],
    [
      'two private keys among public ones',
      [set('jwks', { keys: [{ kty: 'RSA', n: 'n', e: 'e' }, PRIVATE_RSA, { kty: 'oct', k: 'k' }] })],
      ['jwks_private_key', 'jwks_private_key'],
    ],
    [
      'private_key_jwt without keys',
      [set('token_endpoint_auth_method', 'private_key_jwt')],
      ['private_key_jwt_without_keys'],
    ],
    [
      'both jwks_uri and jwks',
      [set('jwks_uri', 'https://app.example.com/jwks.json'), set('jwks', { keys: [] })],
      ['jwks_and_jwks_uri'],
    ],
    ['a data: logo', [set('logo_uri', 'data:image/svg+xml,<svg onload=alert(1)>')], ['invalid_metadata']],
    ['an unknown application_type', [set('application_type', 'desktop')], ['invalid_metadata']],
    ['a malformed jwks', [set('jwks', { keys: 'none' })], ['invalid_metadata']],
    [
      'a token_endpoint_auth_method that is not a string',
      [set('token_endpoint_auth_method', ['none'])],
      ['invalid_metadata'],
    ],
  ])('rejects %s', (_case, changes, rules) => {
    expect(rulesOf(changed(...changes))).toEqual(rules);
  });

  it('accepts a private-use redirect URI only when the server allows its scheme (RFC 8252 7.1)', () => {
    const document = changed(set('redirect_uris', ['cursor://anysphere.cursor-mcp/oauth/callback']));
    expect(rulesOf(document)).toEqual(['redirect_uri_insecure']);
    expect(validateClientIdMetadataDocument(document, URL, { privateUseSchemes: ['cursor'] })).toEqual({
      ok: true,
      document,
    });
    const withFragment = changed(set('redirect_uris', ['cursor://anysphere.cursor-mcp/cb#x']));
    const refused = validateClientIdMetadataDocument(withFragment, URL, { privateUseSchemes: ['cursor'] });
    expect(refused.ok ? [] : refused.errors.map((error) => error.rule)).toEqual(['redirect_uri_fragment']);
  });

  it('refuses a document fetched from a URL that is not a Client Identifier URL', () => {
    const url = 'https://app.example.com/';
    expect(rulesOf(changed(set('client_id', url)), url)).toEqual(['client_id_url_invalid']);
  });

  it('names the offending member and keeps the messages readable', () => {
    const result = validateClientIdMetadataDocument(
      changed(set('redirect_uris', ['https://a.example/cb', 'http://evil.example/cb'])),
      URL,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      {
        rule: 'redirect_uri_insecure',
        message: expect.stringContaining('https'),
        path: ['redirect_uris', 1],
      },
    ]);
  });

  it('reports every broken rule of a thoroughly bad document, in rule order', () => {
    const document = {
      client_id: 'https://evil.example/client.json',
      redirect_uris: ['http://evil.example/cb#', 'vbscript:msgbox(1)'],
      client_secret: 'shh',
      token_endpoint_auth_method: 'client_secret_post',
      jwks: { keys: [PRIVATE_RSA] },
      jwks_uri: 'https://evil.example/jwks.json',
      logo_uri: 'javascript:alert(1)',
    };
    expect(rulesOf(document)).toEqual([
      'client_id_mismatch',
      'client_name_missing',
      'redirect_uri_insecure',
      'redirect_uri_fragment',
      'redirect_uri_insecure',
      'client_secret_forbidden',
      'shared_secret_auth_method',
      'jwks_private_key',
      'jwks_and_jwks_uri',
      'invalid_metadata',
    ]);
  });

  it('reports exactly the union of the rules broken by independent changes', () => {
    const independent: [Change, ClientIdMetadataDocumentRule][] = [
      [set('client_id', 'https://other.example/client.json'), 'client_id_mismatch'],
      [remove('client_name'), 'client_name_missing'],
      [set('redirect_uris', ['http://evil.example/cb']), 'redirect_uri_insecure'],
      [set('client_secret', 'x'), 'client_secret_forbidden'],
      [set('token_endpoint_auth_method', 'client_secret_basic'), 'shared_secret_auth_method'],
      [set('jwks', { keys: [{ kty: 'oct', k: 'k' }] }), 'jwks_private_key'],
      [set('policy_uri', 'file:///etc/passwd'), 'invalid_metadata'],
    ];
    fc.assert(
      fc.property(fc.subarray(independent), (picked) => {
        const rules = rulesOf(changed(...picked.map(([change]) => change)));
        expect(new Set(rules)).toEqual(new Set(picked.map(([, rule]) => rule)));
        expect(rules).toHaveLength(picked.length);
      }),
    );
  });
});
