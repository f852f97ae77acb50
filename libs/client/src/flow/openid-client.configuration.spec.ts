import { describe, expect, it } from '@jest/globals';
import { clientSecretBasic } from './openid-client.configuration.js';

function header(clientId: string, secret: string): string {
  const headers = new Headers();
  clientSecretBasic(clientId, secret)(
    { issuer: 'https://as.example' },
    { client_id: clientId },
    new URLSearchParams(),
    headers,
  );
  return Buffer.from((headers.get('authorization') as string).slice(6), 'base64').toString('utf8');
}

describe('client_secret_basic (RFC 6749 Section 2.3.1)', () => {
  it('leaves the characters the form serializer keeps unchanged', () => {
    expect(header('pre-registered-client', 'pre_registered.secret*')).toBe(
      'pre-registered-client:pre_registered.secret*',
    );
  });

  it('form-encodes a colon, spaces and non-ASCII so the pair splits unambiguously', () => {
    expect(header('id:with colon', 'sécret')).toBe('id%3Awith+colon:s%C3%A9cret');
  });
});
