import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createAuthorizedFetch, mcpTransportOptions, type AuthorizedFetchOptions } from '@portcullis/client';
import { freePort, HeadlessUserAgent } from '@portcullis/testing';
import { decodeJwt } from 'jose';
import { makeTestCertificates } from '@portcullis/testing';
import { startDocumentServer, type DocumentServer } from '../support/document-server.js';
import { PersonAtBrowser } from '../support/person.js';
import { reserveResource, startProtectedServer, type ProtectedServer } from '../support/protected-server.js';
import { proxyCallback, startProxy, type ProxyFixture } from '../support/proxy.fixture.js';
import { startUpstream, type UpstreamFixture } from '../support/upstream.fixture.js';

const REDIRECT_URI = 'http://127.0.0.1/callback';

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

describe('MCP clients at the protected server, authorized by the proxy in front of a third-party upstream', () => {
  let upstream: UpstreamFixture;
  let proxy: ProxyFixture;
  let server: ProtectedServer;
  let documents: DocumentServer;

  beforeAll(async () => {
    const port = await freePort();
    const { recorder, resource } = await reserveResource();
    const certificates = makeTestCertificates();
    documents = await startDocumentServer(certificates, (clientId) => ({
      client_id: clientId,
      client_name: 'Notes by document',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }));
    upstream = await startUpstream({ redirectUri: proxyCallback(port) });
    proxy = await startProxy({
      port,
      upstream,
      resource,
      env: { CIMD_ENABLED: 'true', CIMD_ALLOW_LOOPBACK: 'true' },
      host: {
        metadataDocumentFetch: {
          ca: certificates.ca,
          lookup: async () => [{ address: '127.0.0.1', family: 4 }],
        },
      },
    });
    server = await startProtectedServer({ recorder, resource, authorizationServer: proxy.issuer });
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await upstream?.close();
    await documents?.close();
  });

  /** Connects the official MCP client through libs/client's authorized fetch, a person answering the pages. */
  async function connect(person: PersonAtBrowser, identity: Partial<AuthorizedFetchOptions>) {
    const authorizedFetch = createAuthorizedFetch({
      resource: server.resource,
      userAgent: person,
      ...identity,
    });
    const client = new Client({ name: 'proxy-tests', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.resource), mcpTransportOptions(authorizedFetch)),
    );
    return { client, authorizedFetch };
  }

  /** Every bearer token the protected server was shown. */
  function bearerTokensAtServer(): string[] {
    return server.recorder.exchanges
      .map((exchange) => /^Bearer (.+)$/.exec(String(exchange.headers.authorization ?? ''))?.[1])
      .filter((token): token is string => token !== undefined);
  }

  it('lets a client registered by dynamic registration sign its user in upstream and call the tools', async () => {
    const person = new PersonAtBrowser(new HeadlessUserAgent(), REDIRECT_URI, { login: 'dora' });
    const { client, authorizedFetch } = await connect(person, {
      clientRegistration: { clientName: 'Notes by DCR' },
    });
    try {
      const created = JSON.parse(
        textOf(
          await client.callTool({ name: 'notes_create', arguments: { title: 'written through the proxy' } }),
        ),
      ) as { id: string };
      const listed = JSON.parse(textOf(await client.callTool({ name: 'notes_list', arguments: {} }))) as {
        id: string;
      }[];
      expect(listed.map((note) => note.id)).toContain(created.id);

      // The client registered itself at the proxy, and its first authorization went through the proxy's consent
      // page before the upstream's sign-in.
      const tokens = await authorizedFetch.tokens();
      expect(tokens?.issuer).toBe(proxy.issuer);
      const registered = await proxy.prisma.client.findUniqueOrThrow({ where: { id: tokens!.clientId } });
      expect(registered).toMatchObject({ origin: 'dynamic', name: 'Notes by DCR' });
      expect(person.walks.map((walk) => walk.pages)).toEqual([
        ['proxy-consent', 'upstream-login', 'upstream-consent'],
      ]);

      // The notes belong to the proxy's local user for dora@upstream, the `sub` of the proxy's tokens.
      const identity = await proxy.prisma.upstreamIdentity.findUniqueOrThrow({
        where: { provider_issuer_subject: { provider: 'oidc', issuer: upstream.issuer, subject: 'dora' } },
      });
      const notes = await server.app.database.database.prisma.note.findMany();
      expect(notes.map((note) => note.owner)).toEqual([identity.userId]);
      for (const token of bearerTokensAtServer()) {
        expect(decodeJwt(token)).toMatchObject({
          iss: proxy.issuer,
          aud: server.resource,
          sub: identity.userId,
        });
      }
    } finally {
      await client.close();
    }
  });

  it('lets a client identified by a client ID metadata document do the same', async () => {
    const person = new PersonAtBrowser(new HeadlessUserAgent(), REDIRECT_URI, { login: 'cimd-user' });
    const { client, authorizedFetch } = await connect(person, { clientMetadataUrl: documents.clientId });
    try {
      const listed = await client.callTool({ name: 'notes_list', arguments: {} });
      expect(listed.isError).toBeFalsy();
      expect((await authorizedFetch.tokens())?.clientId).toBe(documents.clientId);
      expect(person.walks.map((walk) => walk.pages)).toEqual([
        ['proxy-consent', 'upstream-login', 'upstream-consent'],
      ]);
      const identity = await proxy.prisma.upstreamIdentity.findUniqueOrThrow({
        where: {
          provider_issuer_subject: { provider: 'oidc', issuer: upstream.issuer, subject: 'cimd-user' },
        },
      });
      expect(await proxy.prisma.consent.findMany({ where: { userId: identity.userId } })).toEqual([
        expect.objectContaining({ clientId: documents.clientId, resource: server.resource }),
      ]);
      // A client ID metadata document is fetched, not stored as a client.
      expect(await proxy.prisma.client.count({ where: { id: documents.clientId } })).toBe(0);
    } finally {
      await client.close();
    }
  });

  it("only ever shows the upstream its own codes and tokens, and the protected server only the proxy's", async () => {
    const issuedUpstream = upstream.issued();
    expect(issuedUpstream.size).toBeGreaterThan(0);
    const shownUpstream: string[] = [];
    for (const exchange of upstream.exchanges) {
      const form = new URLSearchParams(exchange.body);
      for (const name of ['code', 'refresh_token', 'token', 'id_token_hint', 'subject_token', 'assertion']) {
        const value = form.get(name);
        if (value) shownUpstream.push(value);
      }
      const bearer = /^Bearer (.+)$/.exec(String(exchange.headers.authorization ?? ''))?.[1];
      if (bearer) shownUpstream.push(bearer);
    }
    expect(shownUpstream.length).toBeGreaterThan(0);
    for (const value of shownUpstream) expect(issuedUpstream.has(value)).toBe(true);

    const atServer = bearerTokensAtServer();
    expect(atServer.length).toBeGreaterThan(0);
    for (const token of atServer) {
      expect(issuedUpstream.has(token)).toBe(false);
      expect(decodeJwt(token).iss).toBe(proxy.issuer);
    }
    // Nor does any upstream token appear anywhere in what the protected server received.
    const everything = server.recorder.exchanges
      .map((exchange) => JSON.stringify(exchange.headers) + exchange.body)
      .join('\n');
    for (const value of issuedUpstream) expect(everything.includes(value)).toBe(false);
  });
});
