import { describe, expect, it } from '@jest/globals';
import { envSchema } from '../env.schema.js';

const issuesOf = (connections: unknown) => {
  const result = envSchema.safeParse({
    CONNECTIONS: typeof connections === 'string' ? connections : JSON.stringify(connections),
  });
  return result.success
    ? []
    : result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
};

const GITHUB = { provider: 'github', client_id: 'Ov23li0', client_secret: 's3cret' };

describe('CONNECTIONS', () => {
  it('is empty when unset or empty', () => {
    expect(envSchema.parse({}).CONNECTIONS).toBeUndefined();
    expect(envSchema.parse({ CONNECTIONS: '' }).CONNECTIONS).toBeUndefined();
    expect(envSchema.parse({ CONNECTIONS: '{}' }).CONNECTIONS).toEqual(new Map());
  });

  it('reads each connection as the sign-in preset of the same name, with the preset’s default scopes', () => {
    const env = envSchema.parse({
      CONNECTIONS: JSON.stringify({
        github: { ...GITHUB, scopes: 'repo read:user' },
        'corp-sso': {
          provider: 'entra',
          client_id: '00000000-0000-0000-0000-00000000c11e',
          tenant: 'Organizations',
        },
        wiki: {
          provider: 'oidc',
          issuer: 'https://id.wiki.example/',
          client_id: 'w',
          scopes: ['openid', 'pages'],
        },
      }),
    });
    expect(env.CONNECTIONS).toEqual(
      new Map([
        [
          'github',
          {
            provider: { name: 'github', baseUrl: 'https://github.com', apiUrl: 'https://api.github.com' },
            issuer: 'https://github.com',
            clientId: 'Ov23li0',
            clientSecret: 's3cret',
            scopes: ['repo', 'read:user'],
          },
        ],
        [
          'corp-sso',
          {
            provider: {
              name: 'entra',
              baseUrl: 'https://login.microsoftonline.com',
              tenant: 'organizations',
            },
            issuer: 'https://login.microsoftonline.com/organizations/v2.0',
            clientId: '00000000-0000-0000-0000-00000000c11e',
            scopes: ['openid', 'profile', 'email', 'offline_access'],
          },
        ],
        [
          'wiki',
          {
            provider: { name: 'oidc' },
            // An issuer is kept as written, terminating slash included (RFC 8414 3.3).
            issuer: 'https://id.wiki.example/',
            clientId: 'w',
            scopes: ['openid', 'pages'],
          },
        ],
      ]),
    );
  });

  it.each([
    [
      'not JSON',
      '{github',
      [{ path: 'CONNECTIONS', message: 'must be a JSON object of connection names to connections' }],
    ],
    [
      'a name that is not a path segment',
      { 'Git Hub': GITHUB },
      [{ path: 'CONNECTIONS.Git Hub', message: expect.stringContaining('is not a connection name') }],
    ],
    [
      'the sign-in provider’s name',
      { upstream: GITHUB },
      [{ path: 'CONNECTIONS.upstream', message: expect.stringContaining('is the sign-in provider') }],
    ],
    [
      'an unknown member',
      { github: { ...GITHUB, allowed: { subjects: ['1'] } } },
      [{ path: 'CONNECTIONS.github', message: expect.stringContaining('allowed') }],
    ],
    [
      'an unknown provider',
      { github: { ...GITHUB, provider: 'gitlab' } },
      [
        {
          path: 'CONNECTIONS.github.provider',
          message: expect.stringContaining('must be one of oidc, github'),
        },
      ],
    ],
    [
      'no client',
      { github: { provider: 'github', client_secret: 's' } },
      [{ path: 'CONNECTIONS.github.client_id', message: expect.any(String) }],
    ],
    [
      'a required member of the preset',
      { github: { provider: 'github', client_id: 'Ov23li0' } },
      [{ path: 'CONNECTIONS.github.client_secret', message: 'is required with provider github' }],
    ],
    [
      'another preset’s member',
      { github: { ...GITHUB, tenant: 'common' } },
      [
        {
          path: 'CONNECTIONS.github.tenant',
          message: 'is not read with provider github (only with entra): remove it',
        },
      ],
    ],
    [
      'oidc without an issuer',
      { wiki: { provider: 'oidc', client_id: 'w' } },
      [{ path: 'CONNECTIONS.wiki.issuer', message: 'is required with provider oidc' }],
    ],
    [
      'an OpenID preset without openid',
      { google: { provider: 'google', client_id: 'g', client_secret: 's', scopes: 'email' } },
      [
        {
          path: 'CONNECTIONS.google.scopes',
          message: expect.stringContaining('must include openid with provider google'),
        },
      ],
    ],
    [
      'a plain-http provider off loopback',
      { github: { ...GITHUB, base_url: 'http://github.example.com' } },
      [{ path: 'CONNECTIONS.github.base_url', message: expect.any(String) }],
    ],
  ])('refuses %s, naming the connection and the member', (_, connections, expected) => {
    expect(issuesOf(connections)).toEqual(expected);
  });
});
