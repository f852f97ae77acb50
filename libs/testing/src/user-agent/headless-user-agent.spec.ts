import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import { HeadlessUserAgent } from './headless-user-agent.js';
import { startLoopbackServer, type LoopbackServer, type ReceivedRequest } from './loopback-server.js';

const PAGES: Record<string, string> = {
  '/two-forms': `<!doctype html><title>Sign in</title>
    <form id="login" action="/login?uid=7" method="post">
      <input type="hidden" name="csrf" value="c&amp;1"><input name="username"><input type="password" name="password">
      <button name="action" value="password">Sign in</button>
    </form>
    <form id="other" action="/login/passkey" method="post"><button>Use a passkey</button></form>`,
  '/search':
    '<form action="/results?page=1"><input name="q"><input type="submit" name="go" value="Go"></form>',
  '/no-forms': '<p>Nothing to submit</p>',
  '/post-redirect': `
    <form id="see" method="post" action="/redirect?status=303&amp;to=/after-303"><input name="x" value="1"></form>
    <form id="temporary" method="post" action="/redirect?status=307&to=/after-307"><input name="x" value="1"></form>`,
};

/** Routes of the test server; each test reads what the server received from `server.requests`. */
function route(request: ReceivedRequest, res: ServerResponse): void {
  const url = new URL(request.path, 'http://127.0.0.1');
  const page = PAGES[url.pathname];
  if (page) {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  } else if (url.pathname === '/json') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"error":"invalid_request"}');
  } else if (url.pathname === '/redirect') {
    const status = Number(url.searchParams.get('status') ?? 303);
    res.writeHead(status, { location: url.searchParams.get('to') ?? '/two-forms' }).end();
  } else if (url.pathname === '/loop') {
    res.writeHead(302, { location: `/loop?n=${Number(url.searchParams.get('n') ?? 0) + 1}` }).end();
  } else if (url.pathname === '/set-cookies') {
    res.setHeader('set-cookie', url.searchParams.getAll('c'));
    res.writeHead(204).end();
  } else {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(request.headers.cookie ?? '(no cookie)');
  }
}

describe('HeadlessUserAgent', () => {
  let server: LoopbackServer;
  let ua: HeadlessUserAgent;
  beforeAll(async () => {
    server = await startLoopbackServer(route);
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
    ua = new HeadlessUserAgent();
  });
  const last = () => server.requests.at(-1)!;

  it('asks for HTML with a User-Agent, and lets per-request headers win over the defaults', async () => {
    await ua.get(`${server.url}/two-forms`);
    expect(last().headers).toMatchObject({ accept: 'text/html', 'accept-language': 'en' });
    expect(last().headers['user-agent']).toMatch(/PortcullisHeadlessUserAgent/);
    await ua.get(`${server.url}/two-forms`, { headers: { Accept: 'application/json', 'X-Test': '1' } });
    expect(last().headers).toMatchObject({ accept: 'application/json', 'x-test': '1' });
  });

  it('returns a redirect as it is, with the Location resolved, without following it', async () => {
    const res = await ua.get(`${server.url}/redirect?status=302&to=../two-forms%3Fa%3D1`);
    expect(res.status).toBe(302);
    expect(res.location).toBe(`${server.url}/two-forms?a=1`);
    expect(server.requests.map((r) => r.path)).toEqual(['/redirect?status=302&to=../two-forms%3Fa%3D1']);
  });

  it('reads the forms of a page and picks one by action path, by id, or fails listing the forms found', async () => {
    const page = await ua.get(`${server.url}/two-forms`);
    expect(page.forms()).toHaveLength(2);
    expect(page.form({ action: '/login' }).id).toBe('login');
    expect(page.form({ action: `${server.url}/login?uid=7` }).id).toBe('login');
    expect(page.form({ id: 'other' }).action).toBe(`${server.url}/login/passkey`);
    expect(page.form({ id: 'login' }).fields).toEqual({ csrf: ['c&1'], username: [''], password: [''] });
    expect(() => page.form({ action: '/login?uid=8' })).toThrow(
      /no form matching \{"action":"\/login\?uid=8"\}/,
    );
    expect(() => page.form({ action: '/consent' })).toThrow(
      /forms found:\n {2}#1 POST http:\/\/127\.0\.0\.1:\d+\/login\?uid=7 \(id "login"\) fields: csrf, username, password; buttons: "Sign in"\n {2}#2 POST .*\/login\/passkey \(id "other"\)/,
    );
    expect(() => page.form()).toThrow(/^2 forms on GET .*\/two-forms \(200\); forms found:/);
  });

  it('says a page has no forms, and refuses to look for forms in a body that is not HTML', async () => {
    const empty = await ua.get(`${server.url}/no-forms`);
    expect(empty.forms()).toEqual([]);
    expect(() => empty.form()).toThrow(/the page has no forms\. Body: "<p>Nothing to submit<\/p>"/);
    const json = await ua.get(`${server.url}/json`);
    expect(() => json.forms()).toThrow(
      /GET http:\/\/127\.0\.0\.1:\d+\/json \(200\) is not HTML \(content-type: application\/json\).*invalid_request/,
    );
  });

  it('posts a form urlencoded with the chosen button, Origin and Referer, to its resolved action', async () => {
    const page = await ua.get(`${server.url}/two-forms#top`);
    await ua.submit(page.form({ id: 'login' }), { username: 'alice', password: 'p@ss w&rd' });
    expect(last()).toMatchObject({
      method: 'POST',
      path: '/login?uid=7',
      body: 'csrf=c%261&username=alice&password=p%40ss+w%26rd&action=password',
    });
    expect(last().headers).toMatchObject({
      'content-type': 'application/x-www-form-urlencoded',
      origin: server.url,
      referer: `${server.url}/two-forms`,
    });
  });

  it('submits a GET form as the query of its action and sends no Origin', async () => {
    const page = await ua.get(`${server.url}/search`);
    await ua.submit(page.form(), { q: 'mcp servers' });
    expect(last()).toMatchObject({ method: 'GET', path: '/results?q=mcp+servers&go=Go', body: '' });
    expect(last().headers.origin).toBeUndefined();
  });

  it('follows a 303 after a POST with a GET, and a 307 by repeating the POST and its body', async () => {
    const page = await ua.get(`${server.url}/post-redirect`);
    const see = await ua.submit(page.form({ id: 'see' }));
    expect([see.request.method, see.status]).toEqual(['POST', 303]);
    await ua.follow(see);
    expect(last()).toMatchObject({ method: 'GET', path: '/after-303', body: '' });

    const temporary = await ua.submit(page.form({ id: 'temporary' }), { x: 'again' });
    expect(temporary.status).toBe(307);
    await ua.follow(temporary);
    expect(last()).toMatchObject({ method: 'POST', path: '/after-307', body: 'x=again' });
    expect(last().headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('refuses to follow a response that is not a redirect', async () => {
    const page = await ua.get(`${server.url}/no-forms`);
    await expect(ua.follow(page)).rejects.toThrow(
      /GET http:\/\/127\.0\.0\.1:\d+\/no-forms \(200\) is not a redirect/,
    );
  });

  it('follows redirects until a page that is not a redirect, and gives up on a loop', async () => {
    const start = await ua.get(`${server.url}/redirect?to=/redirect%3Fstatus%3D301%26to%3D/two-forms`);
    const end = await ua.followUntil(start, () => false);
    expect(end.stoppedAt).toBeUndefined();
    expect(end.response.url).toBe(`${server.url}/two-forms`);
    expect(ua.history.map((h) => h.status)).toEqual([303, 301, 200]);

    const loop = await ua.get(`${server.url}/loop`);
    await expect(ua.followUntil(loop, () => false, { maxRedirects: 3 })).rejects.toThrow(
      /more than 3 redirects:\n {2}302 .*\/loop\n(.*\n){3} {2}-> .*\/loop\?n=4$/,
    );
  });

  it('reports the URL when nothing answers', async () => {
    const closed = await startLoopbackServer(() => undefined);
    await closed.close();
    await expect(ua.get(`${closed.url}/x`)).rejects.toThrow(
      `GET ${closed.url}/x failed: connect ECONNREFUSED`,
    );
  });

  describe('cookies', () => {
    const setCookies = (...cookies: string[]) =>
      ua.get(`${server.url}/set-cookies?${cookies.map((c) => `c=${encodeURIComponent(c)}`).join('&')}`);
    const cookieSent = async (path: string, base = server.url) => (await ua.get(`${base}${path}`)).body;

    it('stores every Set-Cookie of a response and sends them back, longest path first', async () => {
      const res = await setCookies('a=1; Path=/', 'b=2; Path=/oauth; HttpOnly', 'c=3; Path=/other');
      expect(res.setCookies.map((outcome) => outcome.outcome)).toEqual(['stored', 'stored', 'stored']);
      expect(await cookieSent('/oauth/authorize')).toBe('b=2; a=1');
      expect(await cookieSent('/')).toBe('a=1');
      expect(ua.cookies(`${server.url}/other`).map((c) => c.name)).toEqual(['c', 'a']);
    });

    it('deletes a cookie the server expires with Max-Age=0', async () => {
      await setCookies('session=abc; Path=/', 'theme=dark; Path=/');
      await setCookies('session=; Path=/; Max-Age=0');
      expect(await cookieSent('/')).toBe('theme=dark');
    });

    it('takes and sends Secure and __Host- cookies over http://127.0.0.1, as browsers do for loopback', async () => {
      const res = await setCookies(
        '__Host-session=s1; Secure; HttpOnly; Path=/; SameSite=Lax',
        '__Host-bad=1; Path=/',
      );
      expect(res.setCookies[0]).toMatchObject({ outcome: 'stored' });
      expect(res.setCookies[1]).toEqual({
        outcome: 'rejected',
        reason: '__Host-bad: a __Host- cookie needs Secure',
      });
      expect(await cookieSent('/')).toBe('__Host-session=s1');
    });

    it('sends a host-only cookie to its host on any port but not to another host name of the same machine', async () => {
      await setCookies('a=1; Path=/');
      const other = await startLoopbackServer(route);
      try {
        expect(await cookieSent('/', other.url)).toBe('a=1');
        expect(await cookieSent('/', `http://localhost:${server.port}`)).toBe('(no cookie)');
      } finally {
        await other.close();
      }
    });

    it('rejects a Domain the host is not within and forgets everything on clearCookies', async () => {
      const res = await setCookies('a=1; Domain=example.com', 'b=2; Path=/');
      expect(res.setCookies[0]).toMatchObject({ outcome: 'rejected' });
      expect(await cookieSent('/')).toBe('b=2');
      ua.clearCookies();
      expect(await cookieSent('/')).toBe('(no cookie)');
    });
  });
});
