import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ID_JAG_TOKEN_TYPE,
  TOKEN_EXCHANGE_GRANT,
} from '@portcullis/extension-enterprise-managed-authorization';
import { SignJWT, type CryptoKey } from 'jose';

/** A running loopback identity provider; `exchanges` counts the ID-JAGs it has issued. */
export interface LoopbackIdp {
  url: string;
  exchanges: number;
  server: Server;
}

/**
 * A minimal enterprise IdP: exchanges the ID token it issued (`alice-id-token`) for an ID-JAG for the requested
 * audience, signed ES256 with `kid` `idp` and `typ` `oauth-id-jag+jwt`, naming `clientIdFor()` as its `client_id`
 * and the requested `resource`. Anything else at `/token` is `invalid_grant`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.1
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx
 */
export async function startLoopbackIdp(key: CryptoKey, clientIdFor: () => string): Promise<LoopbackIdp> {
  const idp: LoopbackIdp = { url: '', exchanges: 0, server: undefined as unknown as Server };
  idp.server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', async () => {
      const form = new URLSearchParams(body);
      if (
        request.url !== '/token' ||
        form.get('grant_type') !== TOKEN_EXCHANGE_GRANT ||
        form.get('subject_token') !== 'alice-id-token'
      ) {
        response
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'invalid_grant' }));
        return;
      }
      idp.exchanges += 1;
      const idJag = await new SignJWT({
        client_id: clientIdFor(),
        resource: form.get('resource'),
        scope: 'notes:read notes:write',
      })
        .setProtectedHeader({ alg: 'ES256', kid: 'idp', typ: 'oauth-id-jag+jwt' })
        .setIssuer(idp.url)
        .setAudience(form.get('audience') ?? '')
        .setSubject('alice')
        .setIssuedAt()
        .setExpirationTime('5m')
        .setJti(crypto.randomUUID())
        .sign(key);
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ access_token: idJag, issued_token_type: ID_JAG_TOKEN_TYPE, token_type: 'N_A' }),
        );
    });
  });
  await new Promise<void>((resolve) => idp.server.listen(0, '127.0.0.1', resolve));
  idp.url = `http://127.0.0.1:${(idp.server.address() as AddressInfo).port}`;
  return idp;
}
