import { afterEach, describe, expect, it } from '@jest/globals';
import { startServer, type RunningServer } from '../../test/support/http-server.js';
import { HeadlessUserAgent } from './headless-user-agent.js';

describe('the headless user-agent', () => {
  const servers: RunningServer[] = [];
  const hits: string[] = [];
  afterEach(async () => {
    hits.length = 0;
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function server(
    routes: Record<string, (origin: string) => [number, string | undefined]>,
  ): Promise<RunningServer> {
    const running = await startServer((request, response) => {
      hits.push(request.url ?? '');
      const route = routes[new URL(request.url ?? '/', 'http://x').pathname];
      const [status, location] = route === undefined ? [404, undefined] : route(running.url);
      response.writeHead(status, location === undefined ? {} : { location }).end('<html>login</html>');
    });
    servers.push(running);
    return running;
  }

  it('returns the Location of the redirect to the redirect URI without fetching it', async () => {
    const as = await server({
      '/authorize': () => [302, 'http://127.0.0.1/callback?code=abc&state=s&iss=x'],
    });
    const session = await new HeadlessUserAgent().begin();

    expect(session.redirectUri).toBe('http://127.0.0.1/callback');
    expect(await session.authorize(`${as.url}/authorize?state=s`)).toBe(
      'http://127.0.0.1/callback?code=abc&state=s&iss=x',
    );
    expect(hits).toEqual(['/authorize?state=s']);
  });

  it('follows same-origin hops inside the authorization server first', async () => {
    const as = await server({
      '/authorize': () => [302, '/approve'],
      '/approve': () => [303, 'http://127.0.0.1/callback?code=abc'],
    });

    expect(await (await new HeadlessUserAgent().begin()).authorize(`${as.url}/authorize`)).toBe(
      'http://127.0.0.1/callback?code=abc',
    );
    expect(hits).toEqual(['/authorize', '/approve']);
  });

  it('fails with user_agent_failed when the server shows a page instead of redirecting', async () => {
    const as = await server({ '/authorize': () => [200, undefined] });

    await expect(
      (await new HeadlessUserAgent().begin()).authorize(`${as.url}/authorize?state=secret`),
    ).rejects.toMatchObject({
      code: 'user_agent_failed',
      details: { endpoint: `${as.url}/authorize`, status: 200 },
    });
  });

  it('refuses to follow a redirect to a third origin', async () => {
    const other = await server({});
    const as = await server({ '/authorize': () => [302, `${other.url}/phish`] });

    await expect(
      (await new HeadlessUserAgent().begin()).authorize(`${as.url}/authorize`),
    ).rejects.toMatchObject({
      code: 'user_agent_failed',
    });
    expect(hits).toEqual(['/authorize']);
  });

  it('does not take a look-alike of the redirect URI for the callback', async () => {
    const as = await server({ '/authorize': () => [302, 'http://127.0.0.1/callbackevil?code=abc'] });

    await expect(
      (await new HeadlessUserAgent().begin()).authorize(`${as.url}/authorize`),
    ).rejects.toMatchObject({
      code: 'user_agent_failed',
    });
  });
});
