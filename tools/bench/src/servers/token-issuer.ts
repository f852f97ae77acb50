/**
 * An authorization server as far as a resource server needs one: RFC 8414 metadata and a JWK set on loopback, and an
 * ES256 signer of RFC 9068 access tokens, so that resource-server benchmarks measure the resource server alone.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';

export interface TokenIssuer {
  readonly issuer: string;
  /** A signed access token with these claims over the defaults (client, subject, a fresh `jti`, one hour). */
  mint(claims: JWTPayload): Promise<string>;
  close(): Promise<void>;
}

export async function startTokenIssuer(): Promise<TokenIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const kid = randomUUID();
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  let issuer = '';
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const body =
      path === '/.well-known/oauth-authorization-server'
        ? { issuer, jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'] }
        : path === '/jwks'
          ? { keys: [jwk] }
          : undefined;
    response
      .writeHead(body ? 200 : 404, { 'content-type': 'application/json' })
      .end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    mint: (claims) =>
      new SignJWT({ client_id: 'bench', sub: 'bench-user', jti: randomUUID(), ...claims })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
        .setIssuer(issuer)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
