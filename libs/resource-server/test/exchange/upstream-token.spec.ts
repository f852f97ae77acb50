import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import {
  ConnectionRequiredError,
  createResourceServer,
  UpstreamTokenError,
  type AuthInfo,
  type ProtectedContext,
  type ResourceServer,
} from '../../src/index.js';
import { bearer } from '../support/http.js';

const RESOURCE = 'http://127.0.0.1:9/mcp';
const CLIENT = { id: 'notes-api', secret: 's3cret/+' };
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

const upstreamAnswer = (token = 'gho_upstream', expiresIn = 3600) => ({
  status: 200,
  body: {
    access_token: token,
    issued_token_type: ACCESS_TOKEN,
    token_type: 'Bearer',
    expires_in: expiresIn,
    scope: 'read:user',
  },
});

describe('upstreamToken: the user’s upstream token by RFC 8693 exchange of the request’s token', () => {
  let as: TestAuthorizationServer;
  let resourceServer: ResourceServer;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: RESOURCE });
    resourceServer = createResourceServer({
      resource: RESOURCE,
      authorizationServers: [as.issuer],
      tokens: { introspection: { clientId: CLIENT.id, clientSecret: CLIENT.secret } },
      logger: { warn: () => undefined, error: () => undefined },
    });
  });
  afterAll(async () => {
    await as?.close();
  });
  beforeEach(() => as.answerTokenRequests(() => upstreamAnswer()));

  /** Runs `use` as the handler of one protected request carrying `token`; answers what it returned or threw. */
  async function asHandler<T>(token: string, use: (context: ProtectedContext) => Promise<T>) {
    let outcome: { value?: T; error?: unknown } = {};
    const handler = resourceServer.protect(async (_request, context) => {
      try {
        outcome = { value: await use(context) };
      } catch (error) {
        outcome = { error };
      }
      return new Response(null, { status: 204 });
    });
    const response = await handler(
      new Request(RESOURCE, { method: 'POST', headers: bearer(token), body: '{}' }),
    );
    expect(response.status).toBe(204);
    return outcome;
  }

  it('presents the request’s token to its issuer with the resource server’s credentials, and keeps the answer', async () => {
    const token = await as.mint({ claims: { sub: 'alice' } });
    const seen = as.tokenRequests.length;
    const first = await asHandler(token, (context) => resourceServer.upstreamToken(context.auth, 'upstream'));
    expect(first.value).toMatchObject({
      accessToken: 'gho_upstream',
      tokenType: 'Bearer',
      scopes: ['read:user'],
    });
    expect(first.value!.expiresAt).toBeGreaterThan(Date.now() + 3500_000);
    const [request] = as.tokenRequests.slice(seen);
    expect(Object.fromEntries(request!.form)).toEqual({
      grant_type: EXCHANGE,
      subject_token: token,
      subject_token_type: ACCESS_TOKEN,
      requested_token_type: ACCESS_TOKEN,
      audience: 'upstream',
    });
    // client_secret_basic: each part form-encoded first (RFC 6749 2.3.1).
    expect(request!.authorization).toBe(`Basic ${Buffer.from('notes-api:s3cret%2F%2B').toString('base64')}`);
    // The SDK's view (what an MCP tool reads as ctx.http.authInfo) works as well, and holds no token.
    const again = await asHandler(token, async (context) => {
      expect(context.authInfo.token).toBe('');
      return resourceServer.upstreamToken(context.authInfo, 'upstream');
    });
    expect(again.value).toEqual(first.value);
    expect(as.tokenRequests.length).toBe(seen + 1);
  });

  it('exchanges again once the kept token is within 30 s of its expiry', async () => {
    as.answerTokenRequests(() => upstreamAnswer('gho_short', 20));
    const token = await as.mint({ claims: { sub: 'bob' } });
    const seen = as.tokenRequests.length;
    await asHandler(token, (context) => resourceServer.upstreamToken(context.auth, 'upstream'));
    await asHandler(token, (context) => resourceServer.upstreamToken(context.auth, 'upstream'));
    expect(as.tokenRequests.length).toBe(seen + 2);
  });

  it('refuses an AuthInfo this resource server did not accept: a handler cannot make one up', async () => {
    const forged: AuthInfo = {
      subject: 'alice',
      clientId: 'c',
      scopes: [],
      audience: [RESOURCE],
      issuer: as.issuer,
      expiresAt: Math.floor(Date.now() / 1000) + 60,
      validatedBy: 'jwt',
    };
    const seen = as.tokenRequests.length;
    await expect(resourceServer.upstreamToken(forged, 'upstream')).rejects.toBeInstanceOf(UpstreamTokenError);
    expect(as.tokenRequests.length).toBe(seen);
  });

  it('says the user must connect, with the interaction_uri the authorization server gave on its own origin', async () => {
    const link = `${as.issuer}/connections/upstream/connect?ticket=t`;
    as.answerTokenRequests(() => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'connect upstream first', interaction_uri: link },
    }));
    const token = await as.mint({ claims: { sub: 'carol' } });
    const { error } = await asHandler(token, (context) =>
      resourceServer.upstreamToken(context.auth, 'upstream'),
    );
    expect(error).toBeInstanceOf(ConnectionRequiredError);
    expect(error).toMatchObject({
      connection: 'upstream',
      interactionUri: link,
      message: 'connect upstream first',
    });
  });

  it.each([
    ['on another origin', 'https://proxy.example/connections/upstream/connect'],
    ['not http', 'javascript:alert(1)'],
    ['with userinfo', 'http://user:pass@127.0.0.1/connect'],
    ['absent', undefined],
  ])(
    'treats invalid_grant with an interaction_uri %s as a refused exchange, not a connection to make',
    async (_case, uri) => {
      as.answerTokenRequests(() => ({
        status: 400,
        body: { error: 'invalid_grant', ...(uri === undefined ? {} : { interaction_uri: uri }) },
      }));
      const token = await as.mint({ claims: { sub: `frank-${_case.length}` } });
      const { error } = await asHandler(token, (context) =>
        resourceServer.upstreamToken(context.auth, 'upstream'),
      );
      expect(error).toBeInstanceOf(UpstreamTokenError);
    },
  );

  it('keys the user by the verified token, not by the view a handler holds', async () => {
    as.answerTokenRequests((form) => ({ ...upstreamAnswer(`gho_${form.get('subject_token')!.slice(-6)}`) }));
    const alice = await as.mint({ claims: { sub: 'alice-view' } });
    const aliceToken = await asHandler(alice, (context) =>
      resourceServer.upstreamToken(context.auth, 'upstream'),
    );
    const mallory = await as.mint({ claims: { sub: 'mallory-view' } });
    const stolen = await asHandler(mallory, async (context) => {
      // A handler rewrites who the SDK view says the user is: the exchange is still Mallory's.
      (context.authInfo.extra as Record<string, unknown>)['subject'] = 'alice-view';
      return resourceServer.upstreamToken(context.authInfo, 'upstream');
    });
    expect(stolen.value!.accessToken).toBe(`gho_${mallory.slice(-6)}`);
    expect(stolen.value!.accessToken).not.toBe(aliceToken.value!.accessToken);
  });

  it.each([
    ['the resource server is refused', { status: 401, body: { error: 'invalid_client' } }],
    ['the answer is no access token', { status: 200, body: { access_token: 'x', token_type: 'Bearer' } }],
    ['the connection is unknown', { status: 400, body: { error: 'invalid_target' } }],
    ['the authorization server fails', { status: 500, body: { error: 'server_error' } }],
  ])('fails with UpstreamTokenError when %s, keeping nothing', async (_case, answer) => {
    as.answerTokenRequests(() => answer);
    const token = await as.mint({ claims: { sub: `dave-${_case.length}` } });
    const seen = as.tokenRequests.length;
    const first = await asHandler(token, (context) => resourceServer.upstreamToken(context.auth, 'upstream'));
    expect(first.error).toBeInstanceOf(UpstreamTokenError);
    await asHandler(token, (context) => resourceServer.upstreamToken(context.auth, 'upstream'));
    expect(as.tokenRequests.length).toBe(seen + 2);
  });

  it('refuses a connection name that could not be one, asking nothing', async () => {
    const token = await as.mint({ claims: { sub: 'erin' } });
    const seen = as.tokenRequests.length;
    const { error } = await asHandler(token, (context) => resourceServer.upstreamToken(context.auth, 'a b'));
    expect(error).toBeInstanceOf(UpstreamTokenError);
    expect(as.tokenRequests.length).toBe(seen);
  });
});

describe('upstreamToken with two trusted authorization servers', () => {
  let proxy: TestAuthorizationServer;
  let other: TestAuthorizationServer;
  let resourceServer: ResourceServer;

  beforeAll(async () => {
    proxy = await startTestAuthorizationServer({ audience: RESOURCE });
    other = await startTestAuthorizationServer({ audience: RESOURCE });
    resourceServer = createResourceServer({
      resource: RESOURCE,
      authorizationServers: [proxy.issuer, other.issuer],
      // The credentials are the proxy's (the first trusted server, unless `issuer` says otherwise).
      tokens: { introspection: { clientId: CLIENT.id, clientSecret: CLIENT.secret } },
      logger: { warn: () => undefined, error: () => undefined },
    });
    for (const server of [proxy, other]) server.answerTokenRequests(() => upstreamAnswer());
  });
  afterAll(async () => {
    await proxy?.close();
    await other?.close();
  });

  it('never sends its credentials to the other one: a token it issued exchanges nothing', async () => {
    const token = await other.mint({ claims: { sub: 'grace' } });
    let outcome: unknown;
    const handler = resourceServer.protect(async (_request, context) => {
      outcome = await resourceServer.upstreamToken(context.auth, 'upstream').catch((error: unknown) => error);
      return new Response(null, { status: 204 });
    });
    expect(
      (await handler(new Request(RESOURCE, { method: 'POST', headers: bearer(token), body: '{}' }))).status,
    ).toBe(204);
    expect(outcome).toBeInstanceOf(UpstreamTokenError);
    expect(other.tokenRequests).toHaveLength(0);
    expect(proxy.tokenRequests).toHaveLength(0);
  });
});
