// OpenID Connect's standard scopes at the proxy, replaying ChatGPT's authorization request
// (`scope=openid email offline_access profile` with `resource`). The proxy is an OpenID provider of its own: its
// ID token carries the name and address the upstream stated at sign-in (the proxy asks the upstream for
// `openid profile email` here); its access token for the resource carries neither scope, and UserInfo answers that
// token (which the resource holds too) without them; a scope nobody offers is still refused.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, HeadlessUserAgent } from '@portcullis/testing';
import { decodeJwt } from 'jose';
import { walk } from '../support/person.js';
import {
  authorizationRequest,
  proxyCallback,
  redeem,
  startProxy,
  type ProxyFixture,
  type TestClient,
} from '../support/proxy.fixture.js';
import { startUpstream, type UpstreamFixture } from '../support/upstream.fixture.js';

const RESOURCE = 'https://notes.example/mcp';
const CHATGPT_REDIRECT = 'https://chatgpt.com/connector_platform_oauth_redirect';
const CHATGPT_SCOPE = 'openid email offline_access profile';

describe("OpenID Connect's profile and email scopes at the proxy", () => {
  let upstream: UpstreamFixture;
  let proxy: ProxyFixture;
  let chatgpt: TestClient;
  beforeAll(async () => {
    const port = await freePort();
    upstream = await startUpstream({ redirectUri: proxyCallback(port) });
    proxy = await startProxy({
      port,
      upstream,
      resource: RESOURCE,
      env: { UPSTREAM_SCOPES: 'openid profile email' },
    });
    chatgpt = await proxy.createClient({
      redirectUri: CHATGPT_REDIRECT,
      name: 'ChatGPT',
      origin: 'preregistered',
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it('are advertised in scopes_supported, with their claims in claims_supported', async () => {
    const metadata = (await (await fetch(`${proxy.issuer}/.well-known/openid-configuration`)).json()) as {
      scopes_supported: string[];
      claims_supported: string[];
    };
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['profile', 'email']));
    expect(metadata.claims_supported).toEqual(expect.arrayContaining(['name', 'email', 'email_verified']));
  });

  it("grant ChatGPT's request with the upstream's name and address as claims, not as access token scopes", async () => {
    const request = authorizationRequest(proxy, chatgpt, RESOURCE, { scope: CHATGPT_SCOPE });
    const ua = new HeadlessUserAgent();
    const walked = await walk(ua, await ua.get(request.url), CHATGPT_REDIRECT, { login: 'dana' });
    expect(walked.stoppedAt?.searchParams.get('error')).toBeNull();
    const tokens = await redeem(proxy, chatgpt, walked.stoppedAt!, request, RESOURCE);
    expect(tokens.status).toBe(200);
    expect(tokens.body['scope']).toBe(CHATGPT_SCOPE);
    expect(decodeJwt(tokens.body['access_token'] as string)['scope']).toBe('openid offline_access');
    const claims = { name: 'dana (upstream)', email: 'dana@upstream.example', email_verified: true };
    const idToken = decodeJwt(tokens.body['id_token'] as string);
    expect(idToken).toMatchObject(claims);
    // The proxy's subject is its own user, never the upstream's.
    expect(idToken.sub).not.toBe('dana');
    const userinfo = await fetch(`${proxy.issuer}/userinfo`, {
      headers: { authorization: `Bearer ${tokens.body['access_token'] as string}` },
    });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toEqual({
      sub: idToken.sub,
      preferred_username: idToken['preferred_username'],
    });
  });

  it('still refuse a scope nobody offers, before going upstream, with nothing stored and no redirect', async () => {
    // A client that registered itself and nobody approved: its error is a page, never a redirect.
    const registered = await proxy.createClient({ redirectUri: CHATGPT_REDIRECT, origin: 'dynamic' });
    const before = await proxy.counts();
    const exchanges = upstream.exchanges.length;
    const ua = new HeadlessUserAgent();
    const page = await ua.get(
      authorizationRequest(proxy, registered, RESOURCE, { scope: 'openid email address' }).url,
    );
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    expect(page.body).toContain('invalid_scope');
    expect(page.body).toContain('scope not offered for this resource: address');
    expect(await proxy.counts()).toEqual(before);
    expect(upstream.exchanges.length).toBe(exchanges);
  });
});

describe("the upstream's two statements about the person at the proxy", () => {
  let upstream: UpstreamFixture;
  let proxy: ProxyFixture;
  let chatgpt: TestClient;
  beforeAll(async () => {
    const port = await freePort();
    // The ID token states an older address, verified; UserInfo (read after it) a newer one, with no verification.
    upstream = await startUpstream({
      redirectUri: proxyCallback(port),
      accountClaims: (id, use) =>
        use === 'id_token'
          ? { email: `${id}@old.example`, email_verified: true }
          : { email: `${id}@new.example` },
    });
    proxy = await startProxy({
      port,
      upstream,
      resource: RESOURCE,
      env: { UPSTREAM_SCOPES: 'openid profile email' },
    });
    chatgpt = await proxy.createClient({
      redirectUri: CHATGPT_REDIRECT,
      name: 'ChatGPT',
      origin: 'preregistered',
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it("never vouches for UserInfo's address with the ID token's email_verified", async () => {
    const request = authorizationRequest(proxy, chatgpt, RESOURCE, { scope: CHATGPT_SCOPE });
    const ua = new HeadlessUserAgent();
    const walked = await walk(ua, await ua.get(request.url), CHATGPT_REDIRECT, { login: 'erin' });
    expect(walked.stoppedAt?.searchParams.get('error')).toBeNull();
    const tokens = await redeem(proxy, chatgpt, walked.stoppedAt!, request, RESOURCE);
    expect(tokens.status).toBe(200);
    // Both statements reached the proxy: the upstream's ID token said the old address, its UserInfo the new one.
    const upstreamIdToken = [...upstream.issued()].find((value) => value.split('.').length === 3);
    expect(upstreamIdToken && decodeJwt(upstreamIdToken)).toMatchObject({
      email: 'erin@old.example',
      email_verified: true,
    });
    expect(decodeJwt(tokens.body['id_token'] as string)).toMatchObject({
      email: 'erin@new.example',
      email_verified: false,
    });
  });
});
