import { describe, expect, it } from '@jest/globals';
import {
  applicationTypeFor,
  chooseTokenEndpointAuthMethod,
  processRegistrationResponse,
  registrationRequestBody,
} from './registration.endpoint.js';

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

describe('dynamic client registration (RFC 7591)', () => {
  it.each([
    [['http://127.0.0.1/callback'], 'native'],
    [['http://localhost:3000/cb', 'http://[::1]/cb'], 'native'],
    [['com.example.app:/oauth'], 'native'],
    [['https://app.example/callback'], 'web'],
    [['http://127.0.0.1/cb', 'https://app.example/cb'], 'web'],
    [['http://app.example/cb'], 'web'],
  ])('gives redirect URIs %j the application_type %s', (uris, expected) => {
    expect(applicationTypeFor(uris)).toBe(expected);
  });

  it('sends application_type only when asked to', () => {
    const base = {
      metadata: { clientName: 'c' },
      redirectUris: ['http://127.0.0.1/cb'],
      wantsRefreshTokens: true,
    };
    expect(registrationRequestBody({ ...base, sendApplicationType: true })['application_type']).toBe(
      'native',
    );
    expect(registrationRequestBody({ ...base, sendApplicationType: false })).not.toHaveProperty(
      'application_type',
    );
  });

  it.each([
    [
      'the registered method when usable',
      'client_secret_post',
      true,
      ['client_secret_basic'],
      'client_secret_post',
    ],
    [
      'basic when a secret came without a method and the server supports it',
      undefined,
      true,
      ['none', 'client_secret_basic'],
      'client_secret_basic',
    ],
    [
      'post when that is all the server supports',
      undefined,
      true,
      ['client_secret_post'],
      'client_secret_post',
    ],
    [
      'basic when the server does not say (RFC 8414 default)',
      undefined,
      true,
      undefined,
      'client_secret_basic',
    ],
    [
      'none without a secret whatever was registered',
      'client_secret_basic',
      false,
      ['client_secret_basic'],
      'none',
    ],
    ['none when a secret came but the server takes only public clients', undefined, true, ['none'], 'none'],
  ])('chooses %s', (_, registered, hasSecret, supported, expected) => {
    expect(chooseTokenEndpointAuthMethod({ registered, hasSecret, supported })).toBe(expected);
  });

  it('reads a secret without client_secret_expires_at as never expiring', async () => {
    const info = await processRegistrationResponse(
      json(201, { client_id: 'abc', client_secret: 'xyz', redirect_uris: ['http://127.0.0.1/cb'] }),
      'https://as.example/register',
    );
    expect(info).toEqual({
      clientId: 'abc',
      clientSecret: 'xyz',
      clientSecretExpiresAt: 0,
      redirectUris: ['http://127.0.0.1/cb'],
    });
  });

  it('reports a refused registration with the server error', async () => {
    await expect(
      processRegistrationResponse(
        json(400, { error: 'invalid_redirect_uri', error_description: 'no loopback' }),
        'https://as.example/register',
      ),
    ).rejects.toMatchObject({
      code: 'registration_failed',
      authorizationServerError: { error: 'invalid_redirect_uri', errorDescription: 'no loopback' },
    });
  });

  it('refuses a registration response without client_id', async () => {
    await expect(
      processRegistrationResponse(json(201, { client_name: 'x' }), 'https://as.example/register'),
    ).rejects.toMatchObject({
      code: 'registration_failed',
    });
  });
});
