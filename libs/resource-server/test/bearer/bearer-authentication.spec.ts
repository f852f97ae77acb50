import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, bearerChallengeOf, getWithRawHeaders } from '../support/http.js';
import { startProtectedTestApp, type ProtectedTestApp } from '../support/protected-test-app.js';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';

const RESOURCE = 'http://127.0.0.1:9/api';
const METADATA_URL = 'http://127.0.0.1:9/.well-known/oauth-protected-resource/api';

describe('bearer authentication on protected routes', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedTestApp;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: RESOURCE });
    app = await startProtectedTestApp({
      resource: RESOURCE,
      authorizationServers: [as.issuer],
      scopesSupported: ['notes:read', 'notes:write'],
      scopeHierarchy: { notes: ['notes:read', 'notes:write'], 'notes:write': ['notes:read'] },
    });
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  it('answers a request without a token with 401, resource_metadata and the default scope, and no error', async () => {
    const response = await fetch(`${app.url}/api/me`);
    expect(response.status).toBe(401);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(bearerChallengeOf(response).params).toEqual({
      resource_metadata: METADATA_URL,
      scope: 'notes:read notes:write',
    });
    expect(await response.text()).toBe('');
  });

  it('names the route’s own scopes in the 401 of a route that requires them', async () => {
    const response = await fetch(`${app.url}/api/notes`, { method: 'POST' });
    expect(response.status).toBe(401);
    expect(bearerChallengeOf(response).params['scope']).toBe('notes:write');
  });

  it('treats a credential of another scheme as no bearer token at all', async () => {
    const response = await fetch(`${app.url}/api/me`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(response.status).toBe(401);
    expect(bearerChallengeOf(response).params['error']).toBeUndefined();
  });

  it('hands the handler an AuthInfo describing the token, never the token itself', async () => {
    const token = await as.mint({ claims: { sub: 'alice', scope: 'notes:read' } });
    const response = await fetch(`${app.url}/api/me`, { headers: bearer(token) });
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(JSON.parse(body)).toMatchObject({
      subject: 'alice',
      clientId: 'client-1',
      scopes: ['notes:read'],
      audience: [RESOURCE],
      issuer: as.issuer,
      validatedBy: 'jwt',
    });
    expect(body).not.toContain(token.split('.')[2]!);
  });

  it('answers a bad token with 401 invalid_token and a challenge carrying resource_metadata', async () => {
    const token = await as.mint({ claims: { aud: 'http://127.0.0.1:9/other' } });
    const response = await fetch(`${app.url}/api/me`, { headers: bearer(token) });
    expect(response.status).toBe(401);
    const challenge = bearerChallengeOf(response);
    expect(challenge.params['error']).toBe('invalid_token');
    expect(challenge.params['resource_metadata']).toBe(METADATA_URL);
    expect(await response.json()).toEqual({
      error: 'invalid_token',
      error_description: 'The access token was not issued for this resource.',
    });
  });

  it('refuses a token without the required scope with 403 insufficient_scope naming every needed scope', async () => {
    const token = await as.mint({ claims: { scope: 'notes:read' } });
    const response = await fetch(`${app.url}/api/notes`, { method: 'POST', headers: bearer(token) });
    expect(response.status).toBe(403);
    expect(bearerChallengeOf(response).params).toEqual({
      error: 'insufficient_scope',
      scope: 'notes:write',
      resource_metadata: METADATA_URL,
      error_description: 'This operation needs the scope notes:write.',
    });
    expect((await response.json()) as unknown).toMatchObject({ error: 'insufficient_scope' });
  });

  it('lets a broader scope of the hierarchy satisfy a narrower one', async () => {
    const token = await as.mint({ claims: { sub: 'bob', scope: 'notes' } });
    const response = await fetch(`${app.url}/api/notes`, { method: 'POST', headers: bearer(token) });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ owner: 'bob' });
  });

  it('decides a resolver route’s scopes from the request body', async () => {
    const reader = await as.mint({ claims: { scope: 'reports:read' } });
    const read = await fetch(`${app.url}/api/action`, {
      method: 'POST',
      headers: { ...bearer(reader), 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'read' }),
    });
    expect(read.status).toBe(201);

    const write = await fetch(`${app.url}/api/action`, {
      method: 'POST',
      headers: { ...bearer(reader), 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'write' }),
    });
    expect(write.status).toBe(403);
    expect(bearerChallengeOf(write).params['scope']).toBe('reports:write reports:read');
  });

  it('refuses a token in the query string with 400 invalid_request, with or without a header', async () => {
    const token = await as.mint();
    for (const headers of [{}, bearer(token)]) {
      const response = await fetch(`${app.url}/api/me?access_token=${token}`, { headers });
      expect(response.status).toBe(400);
      expect(bearerChallengeOf(response).params['error']).toBe('invalid_request');
      expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
    }
  });

  it('refuses a token in a form body beside the header with 400 invalid_request', async () => {
    const token = await as.mint({ claims: { scope: 'notes:write' } });
    const response = await fetch(`${app.url}/api/notes`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: token }).toString(),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('refuses two Authorization header fields with 400 invalid_request', async () => {
    const token = await as.mint();
    const response = await getWithRawHeaders(`${app.url}/api/me`, {
      authorization: [`Bearer ${token}`, `Bearer ${token}`],
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses a malformed Bearer credential with 400 invalid_request', async () => {
    const response = await fetch(`${app.url}/api/me`, { headers: { authorization: 'Bearer a b' } });
    expect(response.status).toBe(400);
    expect(bearerChallengeOf(response).params['error']).toBe('invalid_request');
  });

  it('answers an unexpected handler error with a generic server_error and logs the cause', async () => {
    const token = await as.mint();
    const response = await fetch(`${app.url}/api/boom`, { headers: bearer(token) });
    expect(response.status).toBe(500);
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({
      error: 'server_error',
      error_description: 'The server could not complete the request.',
    });
    expect(body).not.toContain('hunter2');
    expect(app.logger.lines.some((line) => line.includes('hunter2'))).toBe(true);
  });

  it('answers a body the parser refused with a JSON invalid_request, before authentication', async () => {
    const response = await fetch(`${app.url}/api/action`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('leaves unprotected routes alone, and answers unknown routes with 404 invalid_request and no challenge', async () => {
    expect((await fetch(`${app.url}/api/public`)).status).toBe(200);
    const missing = await fetch(`${app.url}/nowhere`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('www-authenticate')).toBeNull();
    expect(missing.headers.get('cache-control')).toBe('no-store');
    expect(await missing.json()).toEqual({ error: 'invalid_request', error_description: 'no such endpoint' });
  });
});
