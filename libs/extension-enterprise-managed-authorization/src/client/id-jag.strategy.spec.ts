import { describe, expect, it } from '@jest/globals';
import { failure, ISSUER, RESOURCE, useIdpTokenEndpoint } from '../../test/support/idp-token-endpoint.js';
import { ID_JAG_TOKEN_TYPE, JWT_BEARER_GRANT } from '../constants.js';
import type { IdJagStrategyOptions } from './id-jag-strategy.options.js';
import { idJagStrategy } from './id-jag.strategy.js';

const idp = useIdpTokenEndpoint();

describe('idJagStrategy: the jwt-bearer grant at the MCP authorization server (RFC 7523 2.1, SEP-990 section 5)', () => {
  it('redeems the ID-JAG as the assertion with the chosen scope, leaving resource and client auth to the SDK', async () => {
    const { sent } = await idp.run();

    expect(sent).toEqual([
      { grant_type: JWT_BEARER_GRANT, assertion: idp.idJag, scope: 'notes:read notes:write' },
    ]);
  });

  it('sends no scope to either server when none was chosen and the IdP names none', async () => {
    const { sent } = await idp.run({}, []);

    expect(idp.requests[0]!.params).not.toHaveProperty('scope');
    expect(sent).toEqual([{ grant_type: JWT_BEARER_GRANT, assertion: idp.idJag }]);
  });

  it('with no scope chosen, idp.requests the scope the IdP granted in the ID-JAG', async () => {
    idp.answer = () => ({
      status: 200,
      body: {
        access_token: idp.idJag,
        issued_token_type: ID_JAG_TOKEN_TYPE,
        token_type: 'N_A',
        scope: 'notes:read',
      },
    });

    const { sent } = await idp.run({}, []);

    expect(sent).toEqual([{ grant_type: JWT_BEARER_GRANT, assertion: idp.idJag, scope: 'notes:read' }]);
  });

  it('narrows the request to the scope the IdP granted, never beyond the chosen one', async () => {
    const granting = (scope: string) => () => ({
      status: 200,
      body: { access_token: idp.idJag, issued_token_type: ID_JAG_TOKEN_TYPE, token_type: 'N_A', scope },
    });
    idp.answer = granting('notes:read');
    const narrowed = await idp.run({}, ['notes:read', 'notes:write']);
    idp.answer = granting('notes:read notes:write admin');
    const wider = await idp.run({}, ['notes:read']);

    expect(narrowed.sent).toEqual([
      { grant_type: JWT_BEARER_GRANT, assertion: idp.idJag, scope: 'notes:read' },
    ]);
    expect(wider.sent).toEqual([{ grant_type: JWT_BEARER_GRANT, assertion: idp.idJag, scope: 'notes:read' }]);
  });

  it("reads the granted scope from the ID-JAG's scope claim when the response names none", async () => {
    idp.idJag = await idp.jwt('oauth-id-jag+jwt', { sub: 'alice', aud: ISSUER, scope: 'notes:read' });

    const { sent } = await idp.run({}, ['notes:read', 'notes:write']);

    expect(sent).toEqual([{ grant_type: JWT_BEARER_GRANT, assertion: idp.idJag, scope: 'notes:read' }]);
  });

  it('an ID-JAG with none of the chosen scope is scope_not_granted, and no jwt-bearer request', async () => {
    idp.answer = () => ({
      status: 200,
      body: {
        access_token: idp.idJag,
        issued_token_type: ID_JAG_TOKEN_TYPE,
        token_type: 'N_A',
        scope: 'admin',
      },
    });

    const { sent, error } = await idp.run({}, ['notes:read']);

    expect(sent).toEqual([]);
    expect(failure(error)).toMatchObject({ code: 'scope_not_granted' });
    expect(failure(error).message).toContain('(notes:read)');
    expect(failure(error).message).not.toContain(idp.idJag);
  });

  it('accepts typ application/oauth-id-jag+jwt in any case (RFC 7515 4.1.9)', async () => {
    idp.idJag = await idp.jwt('Application/OAuth-ID-JAG+JWT');

    const { sent, error } = await idp.run();

    expect(error).toBeUndefined();
    expect(sent[0]?.['assertion']).toBe(idp.idJag);
  });

  it('passes an error of the MCP authorization server through unchanged', async () => {
    const refused = new Error('invalid_grant');
    const strategy = idJagStrategy({ idToken: idp.idToken, idpTokenEndpoint: `${idp.url}/token` });

    await expect(
      strategy.obtainToken({
        issuer: ISSUER,
        authorizationServerMetadata: {},
        resource: RESOURCE,
        scope: [],
        revision: '2026-07-28',
        requestToken: () => Promise.reject(refused),
        fetch: (input, init) => fetch(input, init),
      }),
    ).rejects.toBe(refused);
  });
});

describe('idJagStrategy: options', () => {
  it.each<[string, Partial<IdJagStrategyOptions>, string]>([
    ['an empty ID token', { idToken: '' }, 'idToken'],
    ['an ID token with a line break', { idToken: 'a.b.c\n' }, 'idToken'],
    ['a relative endpoint', { idpTokenEndpoint: '/token' }, 'absolute URL'],
    ['plain http off loopback', { idpTokenEndpoint: 'http://idp.example.com/token' }, 'https'],
    ['a fragment', { idpTokenEndpoint: 'https://idp.example.com/token#x' }, 'fragment'],
    ['userinfo', { idpTokenEndpoint: 'https://u:p@idp.example.com/token' }, 'userinfo'],
    ['a secret without a client ID', { idpClientId: undefined, idpClientSecret: 's' }, 'needs idpClientId'],
    ['an empty client ID', { idpClientId: '' }, 'idpClientId'],
  ])('refuses %s with a TypeError', (_name, options, message) => {
    expect(() =>
      idJagStrategy({ idToken: 'a.b.c', idpTokenEndpoint: 'https://idp.example.com/token', ...options }),
    ).toThrow(expect.objectContaining({ name: 'TypeError', message: expect.stringContaining(message) }));
  });

  it('accepts https anywhere and http on a loopback host', () => {
    for (const idpTokenEndpoint of [
      'https://idp.example.com/oauth2/token',
      'http://localhost:8080/token',
      'http://[::1]/t',
    ]) {
      expect(idJagStrategy({ idToken: 'a.b.c', idpTokenEndpoint }).grantType).toBe(JWT_BEARER_GRANT);
    }
  });
});
