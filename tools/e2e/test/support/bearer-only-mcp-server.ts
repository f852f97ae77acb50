// An MCP server nobody here wrote, as users run them: the official MCP TypeScript SDK's server (`createMcpHandler`,
// both protocol eras) behind the SDK's own `requireBearerAuth` (RFC 6750 Bearer only, no DPoP) and its own
// Protected Resource Metadata (`oauthMetadataResponse`, which names the authorization server and nothing of DPoP),
// trusting an authorization server's JWT access tokens: signature by its JWKS, its issuer, this resource as audience
// (RFC 9068 4). It records the authorization scheme and DPoP header of every MCP request.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  oauthMetadataResponse,
  requireBearerAuth,
  type AuthInfo,
  type OAuthMetadata,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { createRemoteJWKSet, jwtVerify } from 'jose';

export interface BearerOnlyMcpServer {
  /** The MCP endpoint, `http://localhost:<port>/mcp`: the resource its tokens must name. */
  readonly resource: string;
  /** Every request to the MCP endpoint: its `Authorization` scheme (or none) and whether it carried `DPoP`. */
  readonly requests: readonly { readonly scheme: string | undefined; readonly dpop: boolean }[];
  close(): Promise<void>;
}

/**
 * Starts the server on `port` of `localhost` (as the stack's apps listen), trusting `issuer` for `scopes`; its one
 * tool, `whoami`, answers with the subject, client and scopes of the token it was called with.
 */
export async function startBearerOnlyMcpServer(input: {
  readonly port: number;
  readonly issuer: string;
  readonly scopes: readonly string[];
}): Promise<BearerOnlyMcpServer> {
  const resource = `http://localhost:${input.port}/mcp`;
  const metadataResponse = await fetch(`${input.issuer}/.well-known/oauth-authorization-server`);
  const authorizationServerMetadata = (await metadataResponse.json()) as OAuthMetadata;
  const keys = createRemoteJWKSet(new URL(authorizationServerMetadata.jwks_uri as string));
  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      try {
        const { payload } = await jwtVerify(token, keys, { issuer: input.issuer, audience: resource });
        return {
          token,
          clientId: String(payload['client_id'] ?? ''),
          scopes: typeof payload['scope'] === 'string' ? payload['scope'].split(' ') : [],
          ...(payload.exp === undefined ? {} : { expiresAt: payload.exp }),
          resource: new URL(resource),
          extra: { subject: payload.sub },
        };
      } catch (error) {
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          `the access token is not valid here: ${String(error)}`,
        );
      }
    },
  };
  const metadataOptions = {
    oauthMetadata: authorizationServerMetadata,
    resourceServerUrl: new URL(resource),
    scopesSupported: [...input.scopes],
    resourceName: 'Bearer-only MCP server',
    dangerouslyAllowInsecureIssuerUrl: true,
  };
  const gate = requireBearerAuth({
    verifier,
    expectedResource: new URL(resource),
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(resource)),
  });
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'bearer-only', version: '1.0.0' });
    server.registerTool(
      'whoami',
      { description: 'The subject, client and scopes of the access token of this call.' },
      async (context: ServerContext) => {
        const auth = context.http?.authInfo;
        const answer = { subject: auth?.extra?.['subject'], client_id: auth?.clientId, scope: auth?.scopes };
        return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
      },
    );
    return server;
  });
  const requests: { scheme: string | undefined; dpop: boolean }[] = [];
  const node = toNodeHandler({
    fetch: async (request) => {
      const metadata = oauthMetadataResponse(request, metadataOptions);
      if (metadata !== undefined) return metadata;
      if (new URL(request.url).pathname !== '/mcp') return new Response('Not found', { status: 404 });
      requests.push({
        scheme: request.headers.get('authorization')?.split(' ')[0],
        dpop: request.headers.has('dpop'),
      });
      const auth = await gate(request);
      if (auth instanceof Response) return auth;
      return handler.fetch(request, { authInfo: auth });
    },
  });
  const http: Server = createServer((request, response) => void node(request, response));
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(input.port, 'localhost', () => resolve());
  });
  if ((http.address() as AddressInfo).port !== input.port) throw new Error('listening on the wrong port');
  return {
    resource,
    requests,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await handler.close();
    },
  };
}
