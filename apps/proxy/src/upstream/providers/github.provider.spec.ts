import { describe, expect, it } from '@jest/globals';
import { GithubProvider, githubApiUrl } from './github.provider.js';

const form = (body: string, status = 200) =>
  new Response(body, {
    status,
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
  });
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });

describe("GitHub's token endpoint, read as RFC 6749 5.1 and 5.2", () => {
  const provider = new GithubProvider({ baseUrl: 'https://github.com', apiUrl: 'https://api.github.com' });

  it('turns an error reported with status 200 into the 400 error response it stands for', async () => {
    const answer = await provider.tokenResponse(
      json({ error: 'incorrect_client_credentials', error_description: 'The client_id is incorrect.' }),
    );
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: 'incorrect_client_credentials' });
  });

  it.each(['bad_verification_code', 'bad_refresh_token'])(
    'reads %s as the invalid_grant it is (a code or refresh token GitHub no longer honours)',
    async (error) => {
      const answer = await provider.tokenResponse(
        json({ error, error_description: 'The code passed is incorrect or expired.' }),
      );
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({
        error: 'invalid_grant',
        error_description: 'The code passed is incorrect or expired.',
      });
    },
  );

  it('reads a form-encoded answer as JSON, its comma-separated scope space-separated', async () => {
    const answer = await provider.tokenResponse(
      form('access_token=gho_x&scope=read%3Auser%2Cuser%3Aemail&token_type=bearer'),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(await answer.json()).toEqual({
      access_token: 'gho_x',
      scope: 'read:user user:email',
      token_type: 'bearer',
    });
    const failed = await provider.tokenResponse(
      form('error=incorrect_client_credentials&error_description=x'),
    );
    expect(failed.status).toBe(400);
  });

  it('hands anything else on unchanged for openid-client to refuse', async () => {
    const html = await provider.tokenResponse(
      new Response('<html>Unicorn!</html>', { status: 503, headers: { 'content-type': 'text/html' } }),
    );
    expect(html.status).toBe(503);
    expect(await html.text()).toBe('<html>Unicorn!</html>');
    const broken = await provider.tokenResponse(
      new Response('{', { headers: { 'content-type': 'application/json' } }),
    );
    expect(await broken.text()).toBe('{');
  });

  it("finds GitHub Enterprise Server's API under /api/v3", () => {
    expect(githubApiUrl('https://github.com')).toBe('https://api.github.com');
    expect(githubApiUrl('https://github.corp.example')).toBe('https://github.corp.example/api/v3');
  });
});
