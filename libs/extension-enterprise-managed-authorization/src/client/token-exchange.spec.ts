import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { decodeJwt, generateKeyPair, jwtVerify } from 'jose';
import {
  basic,
  failure,
  ISSUER,
  RESOURCE,
  useIdpTokenEndpoint,
} from '../../test/support/idp-token-endpoint.js';
import { ID_JAG_TOKEN_TYPE, ID_TOKEN_TYPE, JWT_BEARER_GRANT, TOKEN_EXCHANGE_GRANT } from '../constants.js';
import type { IdJagError } from './id-jag.error.js';
import { idJagStrategy } from './id-jag.strategy.js';

/** A short JWT-shaped text an IdP might put in an error description. */
const SHORT_JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

const idp = useIdpTokenEndpoint();

describe('idJagStrategy: token exchange at the IdP (RFC 8693 2.1, SEP-990 section 4)', () => {
  it('ends with the jwt-bearer grant', () => {
    expect(
      idJagStrategy({ idToken: 'x.y.z', idpTokenEndpoint: 'https://idp.example.com/token' }).grantType,
    ).toBe(JWT_BEARER_GRANT);
  });

  it('sends every SEP-990 parameter and authenticates the IdP client with client_secret_basic', async () => {
    const { result, error } = await idp.run();

    expect(error).toBeUndefined();
    expect(result).toEqual({ access_token: 'mcp-at', token_type: 'Bearer' });
    expect(idp.requests).toHaveLength(1);
    const [request] = idp.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/oauth2/token');
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request!.headers['accept']).toBe('application/json');
    expect(basic(request!.headers['authorization'])).toEqual(['idp-client', 'idp-secret']);
    expect(request!.repeated).toEqual([]);
    expect(request!.params).toEqual({
      grant_type: TOKEN_EXCHANGE_GRANT,
      subject_token: idp.idToken,
      subject_token_type: ID_TOKEN_TYPE,
      requested_token_type: ID_JAG_TOKEN_TYPE,
      audience: ISSUER,
      resource: RESOURCE,
      scope: 'notes:read notes:write',
    });
  });

  it('authenticates the IdP client with private_key_jwt: a fresh assertion for the token endpoint (RFC 7523 2.2, 3)', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const idpPrivateKey = { privateKey, algorithm: 'ES256', keyId: 'k1' };
    const { error } = await idp.run({ idpClientSecret: undefined, idpPrivateKey });
    await idp.run({ idpClientSecret: undefined, idpPrivateKey });

    expect(error).toBeUndefined();
    expect(idp.requests).toHaveLength(2);
    const [first, second] = idp.requests.map((request) => request.params);
    expect(idp.requests[0]!.headers['authorization']).toBeUndefined();
    expect(first).toMatchObject({
      client_id: 'idp-client',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    });
    const { payload, protectedHeader } = await jwtVerify(first!['client_assertion']!, publicKey, {
      issuer: 'idp-client',
      subject: 'idp-client',
      audience: `${idp.url}/oauth2/token`,
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: 'k1' });
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(60);
    expect(decodeJwt(second!['client_assertion']!).jti).not.toBe(payload.jti);
  });

  it('refuses a private key without a client ID, beside a secret, or for a symmetric algorithm', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const endpoint = 'https://idp.example.com/token';
    expect(() =>
      idJagStrategy({
        idToken: idp.idToken,
        idpTokenEndpoint: endpoint,
        idpPrivateKey: { privateKey, algorithm: 'ES256' },
      }),
    ).toThrow(/needs idpClientId/);
    expect(() =>
      idJagStrategy({
        idToken: idp.idToken,
        idpTokenEndpoint: endpoint,
        idpClientId: 'c',
        idpClientSecret: 's',
        idpPrivateKey: { privateKey, algorithm: 'ES256' },
      }),
    ).toThrow(/not both/);
    expect(() =>
      idJagStrategy({
        idToken: idp.idToken,
        idpTokenEndpoint: endpoint,
        idpClientId: 'c',
        idpPrivateKey: { privateKey, algorithm: 'HS256' },
      }),
    ).toThrow(/asymmetric/);
    expect(idp.requests).toHaveLength(0);
  });

  it('form-encodes the IdP client credentials before Basic encoding (RFC 6749 2.3.1)', async () => {
    await idp.run({ idpClientId: 'idp client:1', idpClientSecret: 's%cr+t:é' });

    expect(idp.requests[0]!.headers['authorization']).toBe(
      `Basic ${Buffer.from('idp+client%3A1:s%25cr%2Bt%3A%C3%A9').toString('base64')}`,
    );
    expect(basic(idp.requests[0]!.headers['authorization'])).toEqual(['idp client:1', 's%cr+t:é']);
    expect(idp.requests[0]!.params).not.toHaveProperty('client_id');
    expect(idp.requests[0]!.params).not.toHaveProperty('client_secret');
  });

  it('names a client without a secret with client_id in the body, and sends no Authorization header', async () => {
    await idp.run({ idpClientSecret: undefined });

    expect(idp.requests[0]!.headers['authorization']).toBeUndefined();
    expect(idp.requests[0]!.params['client_id']).toBe('idp-client');
  });

  it('sends no client identification when none is configured', async () => {
    await idp.run({ idpClientId: undefined, idpClientSecret: undefined });

    expect(idp.requests[0]!.headers['authorization']).toBeUndefined();
    expect(Object.keys(idp.requests[0]!.params).sort()).toEqual([
      'audience',
      'grant_type',
      'requested_token_type',
      'resource',
      'scope',
      'subject_token',
      'subject_token_type',
    ]);
  });
});

describe('idJagStrategy: failures at the IdP never reach the MCP authorization server nor echo a token', () => {
  it('an OAuth error response is token_exchange_refused with the IdP error and description', async () => {
    idp.answer = () => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Audience validation failed' },
    });

    const { sent, error } = await idp.run();

    expect(sent).toEqual([]);
    expect(failure(error)).toMatchObject({
      code: 'token_exchange_refused',
      error: 'invalid_grant',
      description: 'Audience validation failed',
    });
    expect((error as IdJagError).details).toMatchObject({
      status: 400,
      error: 'invalid_grant',
      audience: ISSUER,
    });
    expect(failure(error).message).toContain('HTTP 400, invalid_grant (Audience validation failed)');
  });

  it('drops a description that repeats the ID token or the secret, and cuts out other JWTs', async () => {
    idp.answer = () => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: `bad subject_token ${idp.idToken}` },
    });
    const echoed = await idp.run();
    idp.answer = () => ({
      status: 401,
      body: { error: 'invalid_client', error_description: 'secret idp-secret is wrong' },
    });
    const secret = await idp.run();
    idp.answer = () => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: `not ${SHORT_JWT} here` },
    });
    const other = await idp.run();

    expect(failure(echoed.error)).toEqual(expect.objectContaining({ error: 'invalid_grant' }));
    expect(failure(echoed.error).description).toBeUndefined();
    expect(failure(secret.error).description).toBeUndefined();
    expect(failure(other.error).description).toBe('not [redacted] here');
    for (const { error } of [echoed, secret, other]) {
      expect(failure(error).message).not.toContain(idp.idToken);
      expect(failure(error).message).not.toContain(SHORT_JWT);
      expect(failure(error).message).not.toContain('idp-secret');
      expect(JSON.stringify((error as IdJagError).details)).not.toContain('idp-secret');
    }
  });

  it('shows no error text that is not RFC 6749 5.2 text (control characters)', async () => {
    idp.answer = () => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'evil\u001b[2Jtext' },
    });

    const { error } = await idp.run();

    expect(failure(error)).toMatchObject({ code: 'token_exchange_refused', error: 'invalid_grant' });
    expect(failure(error).description).toBeUndefined();
    expect(failure(error).message).not.toContain('\u001b');
  });

  it('a 500 without an OAuth error body is token_exchange_refused without an IdP error', async () => {
    idp.answer = () => ({ status: 500, body: 'internal error' });

    const { error } = await idp.run();

    expect(failure(error)).toEqual(
      expect.objectContaining({
        code: 'token_exchange_refused',
        message: expect.stringContaining('HTTP 500'),
      }),
    );
    expect((error as IdJagError).idpError).toBeUndefined();
  });

  it('does not follow a redirect: the ID token is sent once, to the configured endpoint', async () => {
    idp.answer = (request) =>
      request.path === '/oauth2/token'
        ? { status: 307, body: '', headers: { location: `${idp.url}/elsewhere` } }
        : { status: 200, body: {} };

    const { error } = await idp.run();

    expect(failure(error)).toMatchObject({ code: 'token_exchange_refused' });
    expect(failure(error).message).toContain('a redirect, which is not followed');
    expect(idp.requests.map((request) => request.path)).toEqual(['/oauth2/token']);
  });

  it('an unreachable IdP is idp_request_failed', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const { sent, error } = await idp.run({ idpTokenEndpoint: `http://127.0.0.1:${port}/token` });

    expect(sent).toEqual([]);
    expect(failure(error)).toMatchObject({ code: 'idp_request_failed' });
    expect(failure(error).message).toContain(`http://127.0.0.1:${port}/token`);
  });

  it.each<[string, () => Promise<unknown>, string]>([
    ['not JSON', async () => 'not json', 'not a JSON object'],
    ['a JSON array', async () => [], 'not a JSON object'],
    [
      'another issued_token_type',
      async () => ({
        access_token: idp.idJag,
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      }),
      'issued_token_type',
    ],
    [
      'no issued_token_type',
      async () => ({ access_token: idp.idJag, token_type: 'N_A' }),
      'issued_token_type',
    ],
    ['no access_token', async () => ({ issued_token_type: ID_JAG_TOKEN_TYPE }), 'not a compact JWT'],
    [
      'an opaque access_token',
      async () => ({ access_token: 'opaque-grant', issued_token_type: ID_JAG_TOKEN_TYPE }),
      'not a compact JWT',
    ],
    [
      'a JWT whose header is not JSON',
      async () => ({ access_token: 'bm90LWpzb24.e30.c2ln', issued_token_type: ID_JAG_TOKEN_TYPE }),
      'cannot be decoded',
    ],
    [
      'a JWT with typ JWT',
      async () => ({ access_token: await idp.jwt('JWT'), issued_token_type: ID_JAG_TOKEN_TYPE }),
      'typ is not oauth-id-jag+jwt',
    ],
    [
      'a JWT without typ',
      async () => ({ access_token: await idp.jwt(undefined), issued_token_type: ID_JAG_TOKEN_TYPE }),
      'typ is not oauth-id-jag+jwt',
    ],
    [
      'a malformed scope',
      async () => ({ access_token: idp.idJag, issued_token_type: ID_JAG_TOKEN_TYPE, scope: 'a  b' }),
      'scope',
    ],
  ])(
    'a 200 with %s is invalid_token_exchange_response and no jwt-bearer request',
    async (_name, body, problem) => {
      const resolved = await body();
      idp.answer = () => ({ status: 200, body: resolved });

      const { sent, error } = await idp.run();

      expect(sent).toEqual([]);
      expect(failure(error)).toMatchObject({ code: 'invalid_token_exchange_response' });
      expect(failure(error).message).toContain(problem);
      expect(failure(error).message).not.toContain(idp.idToken);
      if (typeof resolved === 'object' && resolved !== null && 'access_token' in resolved) {
        expect(failure(error).message).not.toContain(String(resolved.access_token));
      }
    },
  );
});
