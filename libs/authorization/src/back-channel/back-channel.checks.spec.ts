import { describe, expect, it } from '@jest/globals';
import { HttpRefusalError, OAuthError } from '@portcullis/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizationServerOptions } from '../config/authorization-server.options.js';
import type { BackChannelCheck, BackChannelContext } from './back-channel-check.js';
import {
  CLIENT_CONFIGURATION_CHECKS,
  CLIENT_CONFIGURATION_UPDATE_CHECKS,
  INTROSPECTION_ENDPOINT_CHECKS,
  REGISTRATION_ENDPOINT_CHECKS,
  REVOCATION_ENDPOINT_CHECKS,
  TOKEN_ENDPOINT_CHECKS,
} from './back-channel.checks.js';
import { MAX_REGISTRATION_BODY } from './checks/registration-body-size.check.js';

const FORM = 'application/x-www-form-urlencoded';

interface Outcome {
  readonly headers: Record<string, string>;
  readonly context: BackChannelContext;
  readonly error?: unknown;
}

/** Runs `checks` in order, as the interceptor does, on a request with these headers and body. */
function run(
  checks: readonly BackChannelCheck[],
  request: { headers?: Record<string, string>; body?: string },
  options: Partial<AuthorizationServerOptions> = {},
): Outcome {
  const headers: Record<string, string> = {};
  const reply = {
    header(name: string, value: string) {
      headers[name.toLowerCase()] = value;
      return reply;
    },
  };
  const context: BackChannelContext = {
    request: { headers: request.headers ?? {} } as FastifyRequest,
    reply: reply as unknown as FastifyReply,
    options: { revision: '2025-06-18', ...options } as AuthorizationServerOptions,
    rawBody: request.body === undefined ? undefined : Buffer.from(request.body),
  };
  try {
    for (const check of checks) check.run(context);
  } catch (error) {
    return { headers, context, error };
  }
  return { headers, context };
}

const code = (error: unknown) => (error instanceof OAuthError ? error.code : undefined);

describe('the back-channel prologues', () => {
  it.each([
    ['token', TOKEN_ENDPOINT_CHECKS, true],
    ['revocation', REVOCATION_ENDPOINT_CHECKS, true],
    ['introspection', INTROSPECTION_ENDPOINT_CHECKS, false],
  ] as const)('read a %s form once, never cached, CORS %s', (_name, checks, cors) => {
    const { headers, context, error } = run(checks, {
      headers: { 'content-type': `${FORM}; charset=utf-8` },
      body: 'token=t&resource=a&resource=b',
    });
    expect(error).toBeUndefined();
    expect(context.params?.get('token')).toBe('t');
    expect(context.params?.resources).toEqual(['a', 'b']);
    expect(headers['cache-control']).toBe('no-store');
    expect(headers['pragma']).toBe('no-cache');
    expect(headers['access-control-allow-origin']).toBe(cors ? '*' : undefined);
  });

  it.each([
    ['token', TOKEN_ENDPOINT_CHECKS],
    ['revocation', REVOCATION_ENDPOINT_CHECKS],
    ['introspection', INTROSPECTION_ENDPOINT_CHECKS],
  ] as const)('refuse a %s request that is not a form, with the headers already set', (name, checks) => {
    const { headers, error } = run(checks, { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(code(error)).toBe('invalid_request');
    expect((error as OAuthError).description).toBe(`the ${name} request must be ${FORM}`);
    expect(headers['cache-control']).toBe('no-store');
  });

  it('refuse a control character before a repeated parameter', () => {
    const { error } = run(TOKEN_ENDPOINT_CHECKS, {
      headers: { 'content-type': FORM },
      body: 'grant_type=a&grant_type=b&code=%00',
    });
    expect((error as OAuthError).description).toBe('code contains a control character');
    const repeated = run(TOKEN_ENDPOINT_CHECKS, {
      headers: { 'content-type': FORM },
      body: 'grant_type=a&grant_type=b',
    });
    expect((repeated.error as OAuthError).description).toBe('parameter sent more than once: grant_type');
  });

  it('take JSON, not a form, at registration: 415 from the refusal table', () => {
    for (const checks of [REGISTRATION_ENDPOINT_CHECKS, CLIENT_CONFIGURATION_UPDATE_CHECKS]) {
      const { headers, error } = run(checks, { headers: { 'content-type': FORM }, body: 'client_name=x' });
      expect(error).toBeInstanceOf(HttpRefusalError);
      expect((error as HttpRefusalError).status).toBe(415);
      expect(headers['access-control-allow-origin']).toBe('*');
      expect(headers['cache-control']).toBe('no-store');
    }
  });

  it('refuse a registration document over the limit, declared or received: 413 from the refusal table', () => {
    const json = { 'content-type': 'application/json' };
    const declared = run(REGISTRATION_ENDPOINT_CHECKS, {
      headers: { ...json, 'content-length': String(MAX_REGISTRATION_BODY + 1) },
      body: '{}',
    });
    expect((declared.error as HttpRefusalError).status).toBe(413);
    const received = run(REGISTRATION_ENDPOINT_CHECKS, {
      headers: json,
      body: 'x'.repeat(MAX_REGISTRATION_BODY + 1),
    });
    expect((received.error as HttpRefusalError).status).toBe(413);
    expect(
      run(REGISTRATION_ENDPOINT_CHECKS, { headers: json, body: 'x'.repeat(MAX_REGISTRATION_BODY) }).error,
    ).toBe(undefined);
  });

  it('ask for the initial access token before looking at the body, only at registration', () => {
    const options = { registration: { enabled: true, initialAccessToken: 'iat' } };
    const { headers, error } = run(
      REGISTRATION_ENDPOINT_CHECKS,
      { headers: { 'content-type': FORM } },
      options,
    );
    expect(code(error)).toBe('invalid_token');
    // The refusal carries its challenge, for the exception filter to write; the check writes no header of its own.
    expect((error as OAuthError).headers['www-authenticate']).toBe('Bearer');
    expect(headers['www-authenticate']).toBeUndefined();
    const wrong = run(
      REGISTRATION_ENDPOINT_CHECKS,
      { headers: { 'content-type': 'application/json', authorization: 'Bearer other' }, body: '{}' },
      options,
    ).error as OAuthError;
    expect(wrong.headers['www-authenticate']).toBe(
      'Bearer error="invalid_token", error_description="the initial access token is invalid"',
    );
    const admitted = run(
      REGISTRATION_ENDPOINT_CHECKS,
      { headers: { 'content-type': 'application/json', authorization: 'Bearer iat' }, body: '{}' },
      options,
    );
    expect(admitted.error).toBeUndefined();
    expect(run(CLIENT_CONFIGURATION_CHECKS, {}, options).error).toBeUndefined();
  });

  it('say where the revision deprecates dynamic registration (RFC 9745)', () => {
    const deprecated = run(CLIENT_CONFIGURATION_CHECKS, {}, { revision: '2026-07-28' });
    expect(deprecated.headers['deprecation']).toBe(`@${Date.UTC(2026, 6, 28) / 1000}`);
    expect(run(CLIENT_CONFIGURATION_CHECKS, {}).headers['deprecation']).toBeUndefined();
  });
});
