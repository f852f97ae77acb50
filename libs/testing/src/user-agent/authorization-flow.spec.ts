import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { HeadlessUserAgent } from './headless-user-agent.js';
import { startLoopbackServer, type LoopbackServer, type ReceivedRequest } from './loopback-server.js';

// A tiny authorization server with the shape of a real one: /authorize sends an unauthenticated user to a
// login page with a cookie-bound CSRF token, then to a consent page, then 303s to the client's redirect URI.

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const token = () => randomBytes(12).toString('base64url');

interface Grant {
  code: string;
  clientId: string;
  scopes: string[];
  user: string;
}

function tinyAuthorizationServer() {
  const sessions = new Map<string, string>();
  const grants: Grant[] = [];
  const handler = (request: ReceivedRequest, res: ServerResponse): void => {
    const url = new URL(request.path, 'http://127.0.0.1');
    const cookies = new Map(
      (request.headers.cookie ?? '').split('; ').map((pair) => pair.split('=') as [string, string]),
    );
    const form = new URLSearchParams(request.body);
    const user = sessions.get(cookies.get('__Host-session') ?? '');
    const csrfOk = () => !!cookies.get('__Host-csrf') && cookies.get('__Host-csrf') === form.get('csrf');
    const html = (status: number, body: string, setCookie: string[] = []): void => {
      res
        .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': setCookie })
        .end(body);
    };
    const seeOther = (location: string, setCookie: string[] = []): void => {
      res.writeHead(303, { location, 'set-cookie': setCookie }).end();
    };

    const route = `${request.method} ${url.pathname}`;
    if (route === 'GET /authorize') {
      if (!user) return seeOther(`/login?return_to=${encodeURIComponent(url.pathname + url.search)}`);
      return seeOther(`/consent${url.search}`);
    }
    if (route === 'GET /login' || (route === 'POST /login' && !csrfOk())) {
      if (route === 'POST /login') return html(403, '<p>Invalid CSRF token</p>');
      const csrf = token();
      const returnTo = url.searchParams.get('return_to') ?? '/';
      return html(200, loginPage(csrf, returnTo, ''), [
        `__Host-csrf=${csrf}; Path=/; Secure; HttpOnly; SameSite=Lax`,
      ]);
    }
    if (route === 'POST /login') {
      if (form.get('username') !== 'alice' || form.get('password') !== 'correct horse') {
        return html(200, loginPage(form.get('csrf')!, form.get('return_to')!, 'Wrong username or password'));
      }
      const sid = token();
      sessions.set(sid, 'alice');
      return seeOther(form.get('return_to')!, [
        `__Host-session=${sid}; Path=/; Secure; HttpOnly; SameSite=Lax`,
      ]);
    }
    if (!user) return html(401, '<p>Sign in first</p>');
    if (route === 'GET /consent') {
      const scopes = (url.searchParams.get('scope') ?? '').split(' ');
      return html(200, consentPage(url.searchParams, scopes, cookies.get('__Host-csrf')!));
    }
    if (route === 'POST /consent' && csrfOk()) {
      const redirect = new URL(form.get('redirect_uri')!);
      if (form.get('decision') === 'approve') {
        const grant = { code: token(), clientId: form.get('client_id')!, scopes: form.getAll('scope'), user };
        grants.push(grant);
        redirect.searchParams.set('code', grant.code);
      } else {
        redirect.searchParams.set('error', 'access_denied');
      }
      redirect.searchParams.set('state', form.get('state')!);
      return seeOther(redirect.href);
    }
    html(400, '<p>Bad request</p>');
  };
  return { handler, grants, sessions };
}

function loginPage(csrf: string, returnTo: string, error: string): string {
  return `<!doctype html><html><head><title>Sign in</title><script>if (1 < 2) document.title = "x"</script></head>
    <body><main>${error ? `<p role="alert">${escape(error)}</p>` : ''}
      <form id="login" method="post" action="/login">
        <input type="hidden" name="csrf" value="${escape(csrf)}">
        <input type="hidden" name="return_to" value="${escape(returnTo)}">
        <label>Username <input name="username" autocomplete="username"></label>
        <label>Password <input type="password" name="password"></label>
        <button type="submit">Sign in</button>
      </form></main></body></html>`;
}

function consentPage(query: URLSearchParams, scopes: string[], csrf: string): string {
  const hidden = ['client_id', 'redirect_uri', 'state']
    .map((name) => `<input type="hidden" name="${name}" value="${escape(query.get(name) ?? '')}">`)
    .join('');
  const boxes = scopes
    .map(
      (scope) =>
        `<li><label><input type="checkbox" name="scope" value="${escape(scope)}" checked> ${scope}</label>`,
    )
    .join('');
  return `<!doctype html><h1>Allow ${escape(query.get('client_id') ?? '')}?</h1>
    <form action="/consent" method="post"><input type="hidden" name="csrf" value="${escape(csrf)}">${hidden}
      <ul>${boxes}</ul>
      <button name="decision" value="approve">Allow</button> <button name="decision" value="deny">Deny</button>
    </form>`;
}

describe('HeadlessUserAgent through a login and consent flow', () => {
  let as: LoopbackServer;
  let state: ReturnType<typeof tinyAuthorizationServer>;
  let redirectUri: string;
  let authorizeUrl: string;
  let ua: HeadlessUserAgent;

  beforeAll(async () => {
    state = tinyAuthorizationServer();
    as = await startLoopbackServer(state.handler);
    // A port that was just freed: nothing listens there, so requesting it would fail the test.
    const client = await startLoopbackServer(() => undefined);
    await client.close();
    redirectUri = `${client.url}/cb`;
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'mcp-client',
      redirect_uri: redirectUri,
      state: 'st&te "1"',
      scope: 'openid notes:read notes:write',
    });
    authorizeUrl = `${as.url}/authorize?${query}`;
  });
  afterAll(async () => {
    await as?.close();
  });
  beforeEach(() => {
    ua = new HeadlessUserAgent();
    state.grants.length = 0;
  });

  async function openLoginPage() {
    const { response, stoppedAt } = await ua.followUntil(await ua.get(authorizeUrl), () => false);
    expect(stoppedAt).toBeUndefined();
    expect(response.status).toBe(200);
    return response;
  }

  it('signs in, consents, and stops at the client redirect URI without requesting it', async () => {
    const login = await openLoginPage();
    const afterLogin = await ua.submit(login.form({ id: 'login' }), {
      username: 'alice',
      password: 'correct horse',
    });
    expect(afterLogin.status).toBe(303);
    const consent = await ua.followUntil(afterLogin, (url) => url.startsWith(redirectUri));
    expect(consent.response.url).toMatch(new RegExp(`^${as.url}/consent\\?`));
    const consentForm = consent.response.form({ action: '/consent' });
    expect(consentForm.fields['scope']).toEqual(['openid', 'notes:read', 'notes:write']);
    expect(consentForm.fields['state']).toEqual(['st&te "1"']);

    const approved = await ua.submit(
      consentForm,
      { scope: ['openid', 'notes:read'] },
      { button: { value: 'approve' } },
    );
    const { stoppedAt, response } = await ua.followUntil(approved, (url) => url.startsWith(redirectUri));

    expect(response).toBe(approved);
    expect(stoppedAt?.origin + stoppedAt!.pathname).toBe(redirectUri);
    expect(stoppedAt!.searchParams.get('state')).toBe('st&te "1"');
    expect(state.grants).toEqual([
      {
        code: stoppedAt!.searchParams.get('code'),
        clientId: 'mcp-client',
        scopes: ['openid', 'notes:read'],
        user: 'alice',
      },
    ]);
    expect(
      ua.history.map((entry) => `${entry.method} ${new URL(entry.url).pathname} ${entry.status}`),
    ).toEqual([
      'GET /authorize 303',
      'GET /login 200',
      'POST /login 303',
      'GET /authorize 303',
      'GET /consent 200',
      'POST /consent 303',
    ]);
    expect(ua.history.some((entry) => entry.url.startsWith(redirectUri))).toBe(false);
    expect(
      ua
        .cookies(as.url)
        .map((cookie) => cookie.name)
        .sort(),
    ).toEqual(['__Host-csrf', '__Host-session']);
  });

  it('re-renders the login page on a wrong password, with no session and no redirect', async () => {
    const login = await openLoginPage();
    const again = await ua.submit(login.form(), { username: 'alice', password: 'wrong' });
    expect(again.status).toBe(200);
    expect(again.location).toBeUndefined();
    expect(again.body).toContain('Wrong username or password');
    expect(again.form().fields['username']).toEqual(['']);
    expect(ua.cookies(as.url).map((cookie) => cookie.name)).toEqual(['__Host-csrf']);
    expect(state.grants).toEqual([]);
  });

  it('redirects with access_denied and issues no code when the user denies consent', async () => {
    const login = await openLoginPage();
    const signedIn = await ua.submit(login.form(), { username: 'alice', password: 'correct horse' });
    const consent = await ua.followUntil(signedIn, () => false);
    const denied = await ua.submit(consent.response.form(), {}, { button: { text: 'Deny' } });
    const { stoppedAt } = await ua.followUntil(denied, (url) => url.startsWith(redirectUri));
    expect(stoppedAt?.searchParams.get('error')).toBe('access_denied');
    expect(stoppedAt?.searchParams.has('code')).toBe(false);
    expect(state.grants).toEqual([]);
  });

  it('loses the sign-in when its cookies are cleared, as the CSRF check depends on them', async () => {
    const login = await openLoginPage();
    ua.clearCookies();
    const refused = await ua.submit(login.form(), { username: 'alice', password: 'correct horse' });
    expect(refused.status).toBe(403);
    expect(as.requests.at(-1)).toMatchObject({ method: 'POST', path: '/login' });
    expect(as.requests.at(-1)!.headers.cookie).toBeUndefined();
    expect(ua.cookies(as.url)).toEqual([]);
  });
});
