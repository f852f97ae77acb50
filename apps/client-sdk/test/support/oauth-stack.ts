// A loopback stack for the command line's tests: an authorization server that approves without a person (RFC 8414
// metadata, PKCE S256, RFC 9207 iss, RFC 7591 registration, refresh rotation) and a real MCP server from the
// official SDK behind a bearer-token guard that checks the token's resource and scope per tool, answering with
// RFC 6750 / RFC 9728 challenges.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import { memoryReplayStore, verifyDpopProof } from '@portcullis/extension-dpop';
import { z } from 'zod';

interface Grant {
  /** The key a DPoP-bound token is bound to. */
  readonly jkt?: string | undefined;
  readonly scope: readonly string[];
  readonly resource: string | null;
  readonly clientId: string;
}

export interface StackOptions {
  readonly registration?: boolean;
  /** The token endpoint authentication methods the metadata lists (default `none`, `client_secret_basic`). */
  readonly tokenEndpointAuthMethods?: readonly string[];
  /**
   * `grant_types_supported` of the metadata (default: not listed). With the jwt-bearer grant listed, the token
   * endpoint redeems any assertion sent by a client authenticated with HTTP Basic (the ID-JAG is checked by the test);
   * with `client_credentials` listed, it issues a token to any client authenticated with HTTP Basic (RFC 6749 4.4).
   */
  readonly grantTypes?: readonly string[];
  /**
   * With the jwt-bearer grant listed: also redeem an assertion sent without client authentication, as a workload
   * (MCP SEP-1933) named by `client_id`, or refuse every such request with the `refuse` error.
   */
  readonly workload?: { readonly refuse?: string };
  /**
   * Offer DPoP (RFC 9449): `dpop_signing_alg_values_supported` in both metadata documents, a code redeemed with a
   * valid proof gets a token bound to its key (`token_type` `DPoP`), which the MCP endpoint accepts only as
   * `Authorization: DPoP` with a proof.
   */
  readonly dpop?: boolean;
}

/** Checks a DPoP proof (RFC 9449 4.3) with the extension's own check; the key's thumbprint, or undefined. */
async function dpopProof(
  request: IncomingMessage,
  url: string,
  replay: ReturnType<typeof memoryReplayStore>,
  token?: { accessToken: string; jkt: string },
): Promise<string | undefined> {
  const header = request.headers['dpop'];
  try {
    const proof = await verifyDpopProof(header === undefined ? [] : [header].flat(), {
      method: request.method ?? '',
      url,
      algorithms: ['ES256'],
      maxAgeSeconds: 60,
      ...(token === undefined ? {} : { accessToken: token.accessToken, boundTo: token.jkt }),
      useOnce: (jti, expiresAt) => replay.useOnce(jti, expiresAt),
    });
    return proof.jkt;
  } catch {
    return undefined;
  }
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CLIENT_CREDENTIALS = 'client_credentials';

async function listen(
  handler: (request: IncomingMessage, response: ServerResponse, body: string) => Promise<void>,
) {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      handler(request, response, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500);
        response.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response
    .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
    .end(JSON.stringify(body));
}

/** Which scope a JSON-RPC request needs: notes:write for notes_create, notes:read for anything else. */
function requiredScope(body: string): string {
  try {
    const message = JSON.parse(body) as { method?: string; params?: { name?: string } };
    return message.method === 'tools/call' && message.params?.name === 'notes_create'
      ? 'notes:write'
      : 'notes:read';
  } catch {
    return 'notes:read';
  }
}

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'test-notes', version: '1.0.0' });
  server.registerTool('notes_list', { description: 'List notes' }, async () => ({
    content: [{ type: 'text', text: 'no notes yet' }],
  }));
  server.registerTool(
    'notes_create',
    { description: 'Create a note', inputSchema: z.object({ title: z.string() }) },
    async ({ title }) => ({ content: [{ type: 'text', text: `created "${title}"` }] }),
  );
  return server;
}

export async function startStack(options: StackOptions = {}) {
  const authorizationRequests: URLSearchParams[] = [];
  const tokenRequests: URLSearchParams[] = [];
  /** The `Authorization` header of each token request, in the order of `tokenRequests`. */
  const tokenAuthorizations: (string | undefined)[] = [];
  const registrations: Record<string, unknown>[] = [];
  /** Every JSON-RPC message POSTed to the MCP endpoint, parsed, in order (those answered 401 and 403 too). */
  const mcpMessages: unknown[] = [];
  /** The `Authorization` scheme and whether a `DPoP` proof came along, for each request to the MCP endpoint. */
  const mcpAuthorizations: { scheme: string | undefined; proof: boolean }[] = [];
  /** The `DPoP` proof header of each token request, in the order of `tokenRequests`. */
  const tokenProofs: (string | undefined)[] = [];
  const replay = memoryReplayStore();
  const codes = new Map<string, Grant & { challenge: string; redirectUri: string }>();
  const accessTokens = new Map<string, Grant>();

  const as = await listen(async (request, response, body) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json(response, 200, {
        issuer: as.url,
        authorization_endpoint: `${as.url}/authorize`,
        token_endpoint: `${as.url}/token`,
        ...(options.registration === false ? {} : { registration_endpoint: `${as.url}/register` }),
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: options.tokenEndpointAuthMethods ?? [
          'none',
          'client_secret_basic',
        ],
        authorization_response_iss_parameter_supported: true,
        scopes_supported: ['notes:read', 'notes:write', 'offline_access'],
        ...(options.dpop ? { dpop_signing_alg_values_supported: ['ES256'] } : {}),
        ...(options.grantTypes === undefined ? {} : { grant_types_supported: options.grantTypes }),
      });
    }
    if (url.pathname === '/authorize') {
      authorizationRequests.push(url.searchParams);
      const code = randomBytes(12).toString('hex');
      codes.set(code, {
        clientId: url.searchParams.get('client_id') ?? '',
        scope: (url.searchParams.get('scope') ?? '').split(' '),
        resource: url.searchParams.get('resource'),
        challenge: url.searchParams.get('code_challenge') ?? '',
        redirectUri: url.searchParams.get('redirect_uri') ?? '',
      });
      const callback = new URL(url.searchParams.get('redirect_uri') ?? '');
      callback.searchParams.set('code', code);
      callback.searchParams.set('state', url.searchParams.get('state') ?? '');
      callback.searchParams.set('iss', as.url);
      response.writeHead(302, { location: callback.href }).end();
      return;
    }
    if (url.pathname === '/token') {
      const params = new URLSearchParams(body);
      tokenRequests.push(params);
      tokenAuthorizations.push(request.headers.authorization);
      tokenProofs.push([request.headers['dpop'] ?? []].flat()[0]);
      const grantType = params.get('grant_type') ?? '';
      if ([JWT_BEARER, CLIENT_CREDENTIALS].includes(grantType) && options.grantTypes?.includes(grantType)) {
        const basic = request.headers.authorization?.match(/^Basic (.+)$/)?.[1];
        const workload = basic === undefined && grantType === JWT_BEARER ? options.workload : undefined;
        if (workload?.refuse !== undefined) return json(response, 400, { error: workload.refuse });
        if (basic === undefined && workload === undefined)
          return json(response, 401, { error: 'invalid_client' });
        if (grantType === JWT_BEARER && !params.get('assertion'))
          return json(response, 400, { error: 'invalid_request' });
        const scope = (params.get('scope') ?? '').split(' ').filter((value) => value !== '');
        const accessToken = `at-${randomBytes(12).toString('hex')}`;
        accessTokens.set(accessToken, {
          clientId:
            basic === undefined
              ? (params.get('client_id') ?? '')
              : decodeURIComponent(Buffer.from(basic, 'base64').toString('utf8').split(':')[0] ?? ''),
          scope,
          resource: params.get('resource'),
        });
        return json(response, 200, {
          access_token: accessToken,
          token_type: 'Bearer',
          expires_in: 3600,
          ...(scope.length === 0 ? {} : { scope: scope.join(' ') }),
        });
      }
      const code = codes.get(params.get('code') ?? '');
      codes.delete(params.get('code') ?? '');
      const verifier = createHash('sha256')
        .update(params.get('code_verifier') ?? '')
        .digest('base64url');
      if (
        code === undefined ||
        code.challenge !== verifier ||
        code.redirectUri !== params.get('redirect_uri')
      ) {
        return json(response, 400, { error: 'invalid_grant' });
      }
      const jkt = options.dpop ? await dpopProof(request, `${as.url}/token`, replay) : undefined;
      const accessToken = `at-${randomBytes(12).toString('hex')}`;
      accessTokens.set(accessToken, { ...code, jkt });
      return json(response, 200, {
        access_token: accessToken,
        token_type: jkt === undefined ? 'Bearer' : 'DPoP',
        expires_in: 3600,
        scope: code.scope.join(' '),
      });
    }
    if (url.pathname === '/register' && request.method === 'POST') {
      const metadata = JSON.parse(body) as Record<string, unknown>;
      registrations.push(metadata);
      return json(response, 201, { ...metadata, client_id: `client-${registrations.length}` });
    }
    json(response, 404, { error: 'not_found' });
  });

  const mcp = await listen(async (request, response, body) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const resource = `${mcp.url}/mcp`;
    const metadataUrl = `${mcp.url}/.well-known/oauth-protected-resource/mcp`;
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
      return json(response, 200, {
        resource,
        authorization_servers: [as.url],
        scopes_supported: ['notes:read', 'notes:write'],
        // RFC 9728 2: a resource that accepts DPoP says so; a client binds its tokens only for such a resource.
        ...(options.dpop ? { dpop_signing_alg_values_supported: ['ES256'] } : {}),
      });
    }
    if (url.pathname !== '/mcp') return json(response, 404, { error: 'not_found' });
    if (request.method === 'POST' && body !== '') mcpMessages.push(JSON.parse(body));
    const [, scheme, token] = /^(Bearer|DPoP) (.+)$/.exec(request.headers.authorization ?? '') ?? [];
    mcpAuthorizations.push({ scheme, proof: request.headers['dpop'] !== undefined });
    let grant = token === undefined ? undefined : accessTokens.get(token);
    // RFC 9449 7.1: a bound token only as DPoP with a proof of its key; an unbound one only as Bearer.
    if (grant !== undefined && (grant.jkt !== undefined) !== (scheme === 'DPoP')) grant = undefined;
    if (grant?.jkt !== undefined && token !== undefined) {
      const proven = await dpopProof(request, resource, replay, { accessToken: token, jkt: grant.jkt });
      if (proven === undefined) grant = undefined;
    }
    if (grant === undefined || grant.resource !== resource) {
      return json(
        response,
        401,
        { error: 'invalid_token' },
        {
          'www-authenticate': `Bearer resource_metadata="${metadataUrl}", scope="notes:read"`,
        },
      );
    }
    const needed = requiredScope(body);
    if (!grant.scope.includes(needed)) {
      return json(
        response,
        403,
        { error: 'insufficient_scope' },
        {
          'www-authenticate': `Bearer error="insufficient_scope", scope="${needed}", resource_metadata="${metadataUrl}"`,
        },
      );
    }
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const server = mcpServer();
    await server.connect(transport);
    response.on('close', () => void server.close());
    await transport.handleRequest(request, response, body === '' ? undefined : JSON.parse(body));
  });

  return {
    as,
    mcpUrl: `${mcp.url}/mcp`,
    authorizationRequests,
    tokenRequests,
    tokenAuthorizations,
    tokenProofs,
    registrations,
    mcpMessages,
    mcpAuthorizations,
    close: async () => {
      await Promise.all([as.close(), mcp.close()]);
    },
  };
}
