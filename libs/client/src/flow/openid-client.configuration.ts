/**
 * The openid-client configuration for one authorization server and one client: openid-client does the OAuth
 * mechanics (authorization URL, code and refresh grants, client authentication); discovery and every check of the
 * spec happen before, in this SDK, on documents that passed them.
 *
 * Rules kept here:
 * - MCP "Communication Security": endpoints are https; plain http reaches openid-client only for a loopback host
 *   (the metadata schema refuses it anywhere else), which is the one case `allowInsecureRequests` is switched on.
 * - RFC 9207 Section 2.4: the metadata goes to openid-client as checked, under every revision, with its
 *   `authorization_response_iss_parameter_supported`; openid-client's own `iss` check then agrees with the one this
 *   SDK ran first.
 * - RFC 6749 Section 2.3.1: `client_secret_basic` or `client_secret_post` with a secret, else `none` (public
 *   client, `client_id` in the body). For `client_secret_basic` the client ID and secret are encoded with the
 *   `application/x-www-form-urlencoded` serializer RFC 6749 Appendix B refers to (the WHATWG one, which leaves
 *   `*-._` as they are) before Base64; openid-client's own encoder also escapes `-`, which servers that compare the
 *   decoded Basic credentials without form-decoding them (the conformance suite's mock) do not accept.
 * - RFC 7523 Section 2.2: `private_key_jwt` signs a fresh assertion for every token request with the client's key
 *   (`client-auth/private-key-jwt.ts`); without the key, no request is made (`no_client_id`).
 * - RFC 9449 Section 5: with a proof key, every request to the token endpoint carries a fresh `DPoP` proof of `POST`
 *   and the token endpoint URL (with the nonce its server last sent), and the nonce of each response is remembered
 *   (Section 8). The proofs are this SDK's (through the extension), not openid-client's own DPoP option, so the
 *   same nonce bookkeeping serves token and resource requests.
 */
import * as oidc from 'openid-client';
import type { ClientAssertionKey } from '../client-auth/client-assertion-key.js';
import { privateKeyJwt } from '../client-auth/private-key-jwt.js';
import type { DiscoveredAuthorizationServer } from '../discovery/authorization-server.discovery.js';
import { PortcullisError } from '../errors/portcullis-error.js';
import type { FetchLike } from '../http/http.js';
import type { TokenProof } from '../proof/proof-of-possession.js';
import type { StoredClient } from '../store/token-store.js';

/**
 * An openid-client `Configuration` for a checked server and a resolved client.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1
 */
export function openIdClientConfiguration(input: {
  server: DiscoveredAuthorizationServer;
  client: StoredClient;
  fetch: FetchLike;
  /** The client's private key, for `private_key_jwt`. */
  privateKey?: ClientAssertionKey | undefined;
  /** The authorization's proof-of-possession key (DPoP), when it has one. */
  proof?: TokenProof | undefined;
}): oidc.Configuration {
  const { server, client } = input;
  const config = new oidc.Configuration(
    server.metadata as unknown as oidc.ServerMetadata,
    client.clientId,
    undefined,
    clientAuthentication(client, server, input.privateKey),
  );
  const { proof } = input;
  const tokenEndpoint = new URL(server.tokenEndpoint);
  config[oidc.customFetch] = async (url, options) => {
    const headers = new Headers(options.headers);
    const target = new URL(url);
    const proving =
      proof !== undefined &&
      options.method === 'POST' &&
      target.origin === tokenEndpoint.origin &&
      target.pathname === tokenEndpoint.pathname;
    if (proving)
      headers.set(proof.pop.header, await proof.pop.proof(proof.key, { method: 'POST', url: target }));
    const response = await input.fetch(url, {
      method: options.method,
      headers,
      body: options.body ?? null,
      redirect: 'manual',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    if (proving) proof.pop.rememberNonce(target, response);
    return response;
  };
  const endpoints = [server.authorizationEndpoint, server.tokenEndpoint];
  if (endpoints.some((endpoint) => new URL(endpoint).protocol === 'http:'))
    oidc.allowInsecureRequests(config);
  return config;
}

function clientAuthentication(
  client: StoredClient,
  server: DiscoveredAuthorizationServer,
  privateKey: ClientAssertionKey | undefined,
): oidc.ClientAuth {
  switch (client.tokenEndpointAuthMethod) {
    case 'private_key_jwt':
      if (privateKey === undefined) {
        throw new PortcullisError(
          'no_client_id',
          `The client ${client.clientId} authenticates with private_key_jwt at ${server.issuer}, and no private key is configured for it.`,
          { issuer: server.issuer, clientId: client.clientId },
        );
      }
      return privateKeyJwt(server, privateKey);
    case 'client_secret_basic':
      return clientSecretBasic(client.clientId, client.clientSecret ?? '');
    case 'client_secret_post':
      return oidc.ClientSecretPost(client.clientSecret);
    case 'none':
      return oidc.None();
  }
}

/**
 * `client_secret_basic`: `Authorization: Basic base64(form-urlencode(client_id) ":" form-urlencode(secret))`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1
 * @see https://url.spec.whatwg.org/#concept-urlencoded-byte-serializer
 */
export function clientSecretBasic(clientId: string, clientSecret: string): oidc.ClientAuth {
  const encode = (value: string): string => new URLSearchParams([['', value]]).toString().slice(1);
  const credentials = Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64');
  return (_server, _client, _body, headers) => {
    headers.set('authorization', `Basic ${credentials}`);
  };
}
