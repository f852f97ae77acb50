import { describe, expect, it } from '@jest/globals';
import { BrowserUserAgent } from './browser-user-agent.js';

describe('the browser user-agent (RFC 8252 loopback redirect)', () => {
  it('registers a port-less loopback redirect URI and listens on 127.0.0.1 with a random port per authorization', async () => {
    const userAgent = new BrowserUserAgent({ openBrowser: async () => undefined });
    const first = await userAgent.begin();
    const second = await userAgent.begin();

    expect(userAgent.redirectUris).toEqual(['http://127.0.0.1/callback']);
    expect(first.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(second.redirectUri).not.toBe(first.redirectUri);
    await first.close();
    await second.close();
  });

  it('opens the authorization URL and resolves with the callback the browser brings back, then stops listening', async () => {
    const opened: string[] = [];
    let page = '';
    const userAgent = new BrowserUserAgent({
      onOpen: (url) => opened.push(url),
      // The "browser": follows the authorization server's redirect to the loopback callback.
      openBrowser: async () => {
        const response = await fetch(`${session.redirectUri}?code=abc&state=xyz`);
        page = await response.text();
        expect(response.headers.get('cache-control')).toBe('no-store');
        expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      },
    });
    const session = await userAgent.begin();

    const callback = await session.authorize('https://as.example/authorize?state=xyz');

    expect(opened).toEqual(['https://as.example/authorize?state=xyz']);
    expect(callback).toBe(`${session.redirectUri}?code=abc&state=xyz`);
    expect(page).not.toContain('abc');
    await expect(fetch(session.redirectUri)).rejects.toThrow();
  });

  it('answers other paths with 404 and keeps waiting for the callback', async () => {
    let notFound = 0;
    const userAgent = new BrowserUserAgent({
      openBrowser: async () => {
        notFound = (await fetch(session.redirectUri.replace('/callback', '/favicon.ico'))).status;
        await fetch(`${session.redirectUri}?code=1`);
      },
    });
    const session = await userAgent.begin();

    expect(await session.authorize('https://as.example/authorize')).toBe(`${session.redirectUri}?code=1`);
    expect(notFound).toBe(404);
  });

  it('refuses to hand a non-http(s) URL to the operating system', async () => {
    const opened: string[] = [];
    const session = await new BrowserUserAgent({ openBrowser: async (url) => void opened.push(url) }).begin();

    await expect(session.authorize('javascript:alert(1)')).rejects.toMatchObject({
      code: 'user_agent_failed',
    });
    expect(opened).toEqual([]);
    await session.close();
  });

  it('gives up with user_agent_failed when no callback arrives in time', async () => {
    const session = await new BrowserUserAgent({ timeoutMs: 50, openBrowser: async () => undefined }).begin();

    await expect(session.authorize('https://as.example/authorize')).rejects.toMatchObject({
      code: 'user_agent_failed',
    });
  });
});
