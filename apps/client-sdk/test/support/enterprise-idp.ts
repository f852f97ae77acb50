// A loopback enterprise IdP for the command line's `--id-jag` tests (MCP SEP-990): it signs the user's ID token and
// answers RFC 8693 token exchanges at /token with an ID-JAG (JOSE typ oauth-id-jag+jwt) for the requested audience
// and resource, recording every request; `refuse` makes it answer with an RFC 6749 5.2 error instead.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, generateKeyPair } from 'jose';

export interface ExchangeRequest {
  readonly headers: IncomingHttpHeaders;
  readonly params: URLSearchParams;
}

export async function startIdp(options: { refuse?: { error: string; error_description?: string } } = {}) {
  const { privateKey } = await generateKeyPair('ES256');
  const exchanges: ExchangeRequest[] = [];
  const issued: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        exchanges.push({ headers: request.headers, params });
        response.setHeader('content-type', 'application/json');
        if (options.refuse !== undefined) {
          response.writeHead(400).end(JSON.stringify(options.refuse));
          return;
        }
        const idJag = await new SignJWT({
          sub: 'alice',
          resource: params.get('resource'),
          client_id: 'mcp-client',
          ...(params.get('scope') === null ? {} : { scope: params.get('scope') }),
        })
          .setProtectedHeader({ alg: 'ES256', typ: 'oauth-id-jag+jwt' })
          .setIssuer(url)
          .setAudience(params.get('audience') ?? '')
          .setIssuedAt()
          .setExpirationTime('5m')
          .setJti(randomUUID())
          .sign(privateKey);
        issued.push(idJag);
        response.writeHead(200).end(
          JSON.stringify({
            access_token: idJag,
            issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
            token_type: 'N_A',
            expires_in: 300,
          }),
        );
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const idToken = await new SignJWT({ sub: 'alice', aud: 'idp-client' })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(url)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
  return {
    url,
    tokenEndpoint: `${url}/token`,
    idToken,
    exchanges,
    issued,
    close: () =>
      new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
