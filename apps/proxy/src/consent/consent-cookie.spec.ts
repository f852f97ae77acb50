import { describe, expect, it } from '@jest/globals';
import { CookieExchange, ResourceRegistry, type AuthorizationServerOptions } from '@portcullis/authorization';
import type { ProxyOptions } from '../proxy.options.js';
import { ConsentCookies, consentCookieName } from './consent-cookie.js';

const RESOURCE = 'https://mcp.example.com/mcp';
const resources = new ResourceRegistry([
  {
    uri: RESOURCE,
    scopesSupported: ['notes:read', 'notes:write'],
    scopeHierarchy: { notes: ['notes:read', 'notes:write'] },
  },
]);
const proxy = { consentCookieTtl: 3600 } as ProxyOptions;

function cookies(issuer: string, secret = 'a'.repeat(32)): ConsentCookies {
  return new ConsentCookies(
    { issuer, cookieSecret: Buffer.from(secret) } as unknown as AuthorizationServerOptions,
    proxy,
    resources,
  );
}

/** What a response set, and the cookies of a next request carrying it, as a browser would send it back. */
function roundTrip(
  jar: ConsentCookies,
  subject: { clientId: string; scopes: string[] },
): { setCookie: string; request: CookieExchange } {
  const response = new CookieExchange(undefined);
  jar.set(response, { ...subject, resource: RESOURCE });
  const setCookie = response.outgoing[0]!;
  return { setCookie, request: new CookieExchange(setCookie.split(';')[0]) };
}

describe('consent cookies', () => {
  it('are __Host- prefixed, Secure, HttpOnly and SameSite=Lax under an https issuer', () => {
    const { setCookie } = roundTrip(cookies('https://proxy.example.com'), {
      clientId: 'a',
      scopes: ['notes:read'],
    });
    expect(setCookie).toMatch(
      /^__Host-portcullis-consent-[\w-]{22}=[\w-]+\.[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Secure; Max-Age=3600$/,
    );
    expect(setCookie).not.toContain('Domain=');
    expect(setCookie.startsWith(`${consentCookieName('a', new URL('https://proxy.example.com'))}=`)).toBe(
      true,
    );
  });

  it('drop the prefix and Secure and name the port on a plain-http loopback issuer, as the session cookie does', () => {
    const { setCookie } = roundTrip(cookies('http://localhost:4200'), {
      clientId: 'a',
      scopes: ['notes:read'],
    });
    expect(setCookie).toMatch(/^portcullis-consent-[\w-]{22}-4200=.*; HttpOnly; SameSite=Lax; Max-Age=3600$/);
  });

  it('cover the client, resource and scopes they were set for, broader scopes included', () => {
    const jar = cookies('https://proxy.example.com');
    const { request } = roundTrip(jar, { clientId: 'a', scopes: ['notes'] });
    expect(jar.covers(request, { clientId: 'a', resource: RESOURCE, scopes: ['notes:write'] })).toBe(true);
    expect(
      jar.covers(request, {
        clientId: 'a',
        resource: 'https://other.example.com/mcp',
        scopes: ['notes:read'],
      }),
    ).toBe(false);
    const narrow = roundTrip(jar, { clientId: 'a', scopes: ['notes:read'] });
    expect(
      jar.covers(narrow.request, {
        clientId: 'a',
        resource: RESOURCE,
        scopes: ['notes:read', 'notes:write'],
      }),
    ).toBe(false);
  });

  it("never cover another client, not even with the other client's cookie name", () => {
    const jar = cookies('https://proxy.example.com');
    const { setCookie } = roundTrip(jar, { clientId: 'client-a', scopes: ['notes:read'] });
    const value = setCookie.split(';')[0]!.split('=')[1]!;
    const forB = new CookieExchange(
      `${consentCookieName('client-b', new URL('https://proxy.example.com'))}=${value}`,
    );
    expect(jar.covers(forB, { clientId: 'client-b', resource: RESOURCE, scopes: ['notes:read'] })).toBe(
      false,
    );
  });

  it('do not verify under another secret, or once altered', () => {
    const { request, setCookie } = roundTrip(cookies('https://proxy.example.com'), {
      clientId: 'a',
      scopes: ['notes:read'],
    });
    const subject = { clientId: 'a', resource: RESOURCE, scopes: ['notes:read'] };
    expect(cookies('https://proxy.example.com', 'b'.repeat(32)).covers(request, subject)).toBe(false);
    const [name, signed] = setCookie.split(';')[0]!.split('=') as [string, string];
    const [value, mac] = signed.split('.') as [string, string];
    const claim = JSON.parse(Buffer.from(value, 'base64url').toString()) as Record<string, unknown>;
    const widened = Buffer.from(JSON.stringify({ ...claim, s: ['notes'] })).toString('base64url');
    const altered = new CookieExchange(`${name}=${widened}.${mac}`);
    expect(cookies('https://proxy.example.com').covers(altered, { ...subject, scopes: ['notes'] })).toBe(
      false,
    );
  });
});
