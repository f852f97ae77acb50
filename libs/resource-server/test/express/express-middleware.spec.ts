import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import express from 'express';
import { createResourceServer } from '../../src/index.js';
import { metadataRouter, requireBearer, type AuthenticatedRequest } from '../../src/express/index.js';
import { bearer, bearerChallengeOf, getWithRawHeaders } from '../support/http.js';

/**
 * The Express adapter in a plain Express app on loopback: the metadata router, and `requireBearer` in front of a
 * handler that echoes the `req.auth` it was given (what `toNodeHandler` hands the MCP SDK).
 */
describe('the Express middleware', () => {
  let as: TestAuthorizationServer;
  let server: Server;
  let url: string;
  let resource: string;
  let handled: number;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    const app = express();
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    resource = `${url}/mcp`;
    const resourceServer = createResourceServer({
      resource,
      authorizationServers: [as.issuer],
      scopesSupported: ['notes:read', 'notes:write'],
      scopeHierarchy: { notes: ['notes:read', 'notes:write'] },
    });
    app.use(metadataRouter(resourceServer));
    const guard = requireBearer(resourceServer, { scopes: ['notes:read'] });
    const echo = (req: express.Request, res: express.Response) => {
      handled += 1;
      const { auth } = req as AuthenticatedRequest;
      res.json({ token: auth?.token, scopes: auth?.scopes, subject: auth?.extra?.['subject'] });
    };
    app.post('/mcp', express.json(), guard, echo);
    app.get('/mcp', guard, echo);
    app.get('/other', (_req, res) => {
      res.status(418).send('the host’s own');
    });
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await as?.close();
  });

  const post = async (headers: Record<string, string>, body = '{}') => {
    handled = 0;
    return fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  };

  it('serves the metadata document at both well-known paths and passes other requests on', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await fetch(`${url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toMatchObject({ resource, authorization_servers: [as.issuer] });
    }
    const other = await fetch(`${url}/other`);
    expect(other.status).toBe(418);
  });

  it('passes on request targets that do not parse as a URL against a base, never answering them 500', async () => {
    for (const path of ['//', '//[', '//a:b@/x', '/.well-known/oauth-protected-resource/mcp?x#y']) {
      const status = await new Promise<number>((resolve, reject) => {
        const request = httpRequest(`${url}/`, { path, method: 'GET' }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.once('error', reject);
        request.end();
      });
      expect([path, status]).toEqual([path, path.startsWith('/.well-known') ? 200 : 404]);
    }
  });

  it('answers a request without a token with 401, resource_metadata and scope', async () => {
    const response = await post({});
    expect(response.status).toBe(401);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(bearerChallengeOf(response).params).toEqual({
      resource_metadata: `${url}/.well-known/oauth-protected-resource/mcp`,
      scope: 'notes:read',
    });
    expect(handled).toBe(0);
  });

  it('hands the handler the SDK’s auth info for a good token, without the token', async () => {
    const response = await post(
      bearer(await as.mint({ claims: { aud: resource, sub: 'dora', scope: 'notes' } })),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      token: '',
      scopes: ['notes', 'notes:read', 'notes:write'],
      subject: 'dora',
    });
    expect(handled).toBe(1);
  });

  it('refuses another audience with 401 and a missing scope with 403 insufficient_scope', async () => {
    const foreign = await post(bearer(await as.mint({ claims: { aud: `${url}/other` } })));
    expect(foreign.status).toBe(401);
    expect(bearerChallengeOf(foreign).params['error']).toBe('invalid_token');
    const narrow = await post(bearer(await as.mint({ claims: { aud: resource, scope: 'profile' } })));
    expect(narrow.status).toBe(403);
    expect(bearerChallengeOf(narrow).params).toMatchObject({
      error: 'insufficient_scope',
      scope: 'notes:read',
    });
    expect(handled).toBe(0);
  });

  it('refuses a token in the JSON body and two Authorization fields with 400 invalid_request', async () => {
    const token = await as.mint({ claims: { aud: resource } });
    const inBody = await post(bearer(token), JSON.stringify({ access_token: token }));
    expect(inBody.status).toBe(400);
    expect(((await inBody.json()) as { error: string }).error).toBe('invalid_request');
    const twice = await getWithRawHeaders(`${url}/mcp`, {
      authorization: [`Bearer ${token}`, `Bearer ${token}`],
    });
    expect(twice.status).toBe(400);
    expect(JSON.parse(twice.body)).toMatchObject({ error: 'invalid_request' });
    expect(handled).toBe(0);
  });

  it('refuses a disallowed browser Origin with 403 and never calls the handler', async () => {
    const response = await post({
      origin: 'https://evil.example',
      ...bearer(await as.mint({ claims: { aud: resource } })),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(handled).toBe(0);
  });
});
