import { Controller, Get } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import { bearer, bearerChallengeOf } from '../support/http.js';
import { startProtectedTestApp, type ProtectedTestApp } from '../support/protected-test-app.js';

const RESOURCE = 'http://127.0.0.1:9/api';
const METADATA_PATH = '/.well-known/oauth-protected-resource/api';
const APP_ORIGIN = 'https://app.example';
const EVIL_ORIGIN = 'https://evil.example';

/** A route of the host app outside the resource (`/api`): its operations page, say. */
@Controller('internal')
class InternalController {
  @Get('status')
  status(): { up: true } {
    return { up: true };
  }
}

/** Every `Access-Control-*` header of a response: none at all is what a refused origin must see. */
function corsHeaders(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));
}

const preflight = (url: string, origin: string, requestHeaders = 'authorization, content-type') =>
  fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': requestHeaders,
    },
  });

describe('CORS for the configured browser origins', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedTestApp;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: RESOURCE });
    app = await startProtectedTestApp(
      {
        resource: RESOURCE,
        authorizationServers: [as.issuer],
        scopesSupported: ['notes:read', 'notes:write'],
        browserOrigins: { origins: [APP_ORIGIN] },
      },
      { controllers: [InternalController] },
    );
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  it('lets an allowed origin read the 401 challenge: its origin granted, WWW-Authenticate exposed, no credentials', async () => {
    const response = await fetch(`${app.url}/api/me`, { headers: { origin: APP_ORIGIN } });
    expect(response.status).toBe(401);
    expect(bearerChallengeOf(response).params['resource_metadata']).toContain(METADATA_PATH);
    expect(corsHeaders(response)).toEqual({
      'access-control-allow-origin': APP_ORIGIN,
      'access-control-expose-headers': 'WWW-Authenticate, Mcp-Session-Id, MCP-Protocol-Version, DPoP-Nonce',
    });
    expect(response.headers.get('vary')).toContain('Origin');
  });

  it('grants the same on the 403 insufficient_scope challenge and on a success', async () => {
    const narrow = await as.mint({ claims: { scope: 'notes:read' } });
    const refused = await fetch(`${app.url}/api/notes`, {
      method: 'POST',
      headers: { origin: APP_ORIGIN, ...bearer(narrow) },
    });
    expect(refused.status).toBe(403);
    expect(bearerChallengeOf(refused).params['error']).toBe('insufficient_scope');
    expect(refused.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(refused.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');

    const wide = await as.mint({ claims: { scope: 'notes:write' } });
    const served = await fetch(`${app.url}/api/notes`, {
      method: 'POST',
      headers: { origin: APP_ORIGIN, ...bearer(wide) },
    });
    expect(served.status).toBe(201);
    expect(served.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
  });

  it('answers an allowed preflight with 204, the MCP methods and request headers, without a token', async () => {
    const keyFetches = as.hits('/jwks');
    const response = await preflight(
      `${app.url}/api/notes`,
      APP_ORIGIN,
      'authorization, dpop, mcp-session-id, mcp-protocol-version, last-event-id, content-type, accept, mcp-param-region',
    );
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    const headers = corsHeaders(response);
    expect(headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(headers['access-control-allow-methods']).toBe('GET, POST, DELETE');
    expect(headers['access-control-allow-headers']?.split(', ')).toEqual([
      'Authorization',
      'DPoP',
      'Mcp-Session-Id',
      'MCP-Protocol-Version',
      'Last-Event-ID',
      'Content-Type',
      'Accept',
      'Mcp-Method',
      'Mcp-Name',
      'mcp-param-region',
    ]);
    expect(headers['access-control-max-age']).toBe('600');
    expect(headers['access-control-allow-credentials']).toBeUndefined();
    // Answered before authentication: nothing was validated.
    expect(as.hits('/jwks')).toBe(keyFetches);
  });

  it('grants a disallowed origin nothing: no CORS header on its 401, and its preflight refused with 403', async () => {
    const response = await fetch(`${app.url}/api/me`, { headers: { origin: EVIL_ORIGIN } });
    expect(response.status).toBe(401);
    expect(corsHeaders(response)).toEqual({});

    const refused = await preflight(`${app.url}/api/notes`, EVIL_ORIGIN);
    expect(refused.status).toBe(403);
    expect(corsHeaders(refused)).toEqual({});

    for (const spelling of [
      'https://APP.example',
      'https://app.example:443',
      'null',
      'https://app.example.evil',
    ]) {
      const other = await fetch(`${app.url}/api/me`, { headers: { origin: spelling } });
      expect(corsHeaders(other)).toEqual({});
    }
  });

  it("grants nothing on the host app's routes outside the resource, nor answers their preflights", async () => {
    const outside = await fetch(`${app.url}/internal/status`, { headers: { origin: APP_ORIGIN } });
    expect(outside.status).toBe(200);
    expect(corsHeaders(outside)).toEqual({});
    const outsidePreflight = await preflight(`${app.url}/internal/status`, APP_ORIGIN);
    expect(outsidePreflight.status).not.toBe(204);
    expect(corsHeaders(outsidePreflight)).toEqual({});
    // A path that merely begins with the resource's is another route.
    const lookalike = await fetch(`${app.url}/apix/me`, { headers: { origin: APP_ORIGIN } });
    expect(corsHeaders(lookalike)).toEqual({});
    // The resource itself and what lies under it keep the grant.
    const under = await fetch(`${app.url}/api/me?x=1`, { headers: { origin: APP_ORIGIN } });
    expect(under.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
  });

  it('adds nothing to a request without an Origin, as non-browser clients send', async () => {
    const response = await fetch(`${app.url}/api/me`);
    expect(corsHeaders(response)).toEqual({});
  });

  it('keeps the metadata document public to every origin, with the same headers exposed', async () => {
    for (const origin of [APP_ORIGIN, EVIL_ORIGIN]) {
      const response = await fetch(`${app.url}${METADATA_PATH}`, { headers: { origin } });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
      const metadataPreflight = await fetch(`${app.url}${METADATA_PATH}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET' },
      });
      expect(metadataPreflight.status).toBe(204);
      expect(metadataPreflight.headers.get('access-control-allow-origin')).toBe('*');
    }
  });
});

describe('CORS without configured browser origins', () => {
  let app: ProtectedTestApp;
  beforeAll(async () => {
    app = await startProtectedTestApp({ resource: RESOURCE, authorizationServers: ['http://127.0.0.1:9'] });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('grants no origin, and refuses every preflight', async () => {
    const response = await fetch(`${app.url}/api/me`, { headers: { origin: APP_ORIGIN } });
    expect(response.status).toBe(401);
    expect(corsHeaders(response)).toEqual({});
    const refused = await preflight(`${app.url}/api/notes`, 'http://localhost:6274');
    expect(refused.status).toBe(403);
    expect(corsHeaders(refused)).toEqual({});
  });
});
