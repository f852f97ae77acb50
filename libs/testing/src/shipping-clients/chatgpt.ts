// ChatGPT (developer-mode connectors and apps; OpenAI's backend is the OAuth client), replayed.
//
// - Client ID metadata document `https://chatgpt.com/oauth/client.json`, byte for byte as published: a client that
//   prefers `private_key_jwt` (RS256, keys at `https://chatgpt.com/oauth/jwks.json`) and also offers `none`
//   (`token_endpoint_auth_methods_supported`, a member of its own), one redirect
//   `https://chatgpt.com/connector_platform_oauth_redirect`:
//   https://github.com/django-oauth/django-oauth-toolkit/issues/1845, https://github.com/Altinity/altinity-mcp/issues/118,
//   https://github.com/cloudflare/workers-oauth-provider/pull/302.
// - It uses the stable document when the server advertises `client_id_metadata_document_supported` and RFC 9207
//   `iss` (otherwise a per-connector document and `https://chatgpt.com/connector/oauth/<id>`, not replayed here),
//   and authenticates with `private_key_jwt` where the server lists it, without falling back to `none` when it is
//   listed too: https://developers.openai.com/apps-sdk/build/auth, https://github.com/engram-app/Engram/pull/1637.
// - Its client assertion: `iss` = `sub` = the client ID, `aud` the token endpoint URL, `jti`, `iat`, `exp`
//   (RFC 7523 3), signed RS256 with the key its JWKS names: https://github.com/Altinity/altinity-mcp/pull/119,
//   https://github.com/speakeasy-api/gram/pull/5651. The key here is the fixture's own; its public JWKS is served
//   at the real `jwks_uri`.
// - Scope: the resource's `scopes_supported` (which ChatGPT reads from the resource metadata) with the OpenID
//   Connect scopes `openid email offline_access profile` (`email` requested, and refused as `invalid_scope` where
//   not offered; workspace domain restriction needs `openid email`): https://developers.openai.com/apps-sdk/build/auth,
//   https://github.com/QuackbackIO/quackback/pull/63, https://github.com/HelpCode-ai/anythingmcp/pull/563. OpenAI
//   documents no exact scope string; this is the union those reports describe.
// - `resource` on both requests ("Expect ChatGPT to append resource=... to both the authorization and token
//   requests"): https://developers.openai.com/apps-sdk/build/auth.
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { randomUUID } from 'node:crypto';
import {
  acceptsAuthentication,
  advertisesMetadataDocuments,
  present,
  stringList,
  type Discovery,
  type RegistrationChoice,
  type ShippingClient,
} from './shipping-client.js';

export const CHATGPT_METADATA_DOCUMENT = 'https://chatgpt.com/oauth/client.json';
export const CHATGPT_JWKS_URI = 'https://chatgpt.com/oauth/jwks.json';
export const CHATGPT_REDIRECT = 'https://chatgpt.com/connector_platform_oauth_redirect';

/** ChatGPT's document, in its published order. */
export const CHATGPT_DOCUMENT = Object.freeze({
  client_id: CHATGPT_METADATA_DOCUMENT,
  client_uri: 'https://chatgpt.com/',
  redirect_uris: [CHATGPT_REDIRECT],
  token_endpoint_auth_method: 'private_key_jwt',
  token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  client_name: 'ChatGPT',
  logo_uri: 'https://persistent.oaistatic.com/sonic/misc/openai-logo.png',
  token_endpoint_auth_signing_alg: 'RS256',
  jwks_uri: CHATGPT_JWKS_URI,
});

/** The OpenID Connect scopes ChatGPT adds to the resource's. */
export const CHATGPT_OIDC_SCOPES: readonly string[] = Object.freeze([
  'openid',
  'email',
  'offline_access',
  'profile',
]);

const SIGNING_KEY_ID = 'chatgpt-fixture';

/** The fixture's signing key: made once per process, its public half published at the real `jwks_uri`. */
interface SigningKey {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

let key: Promise<SigningKey> | undefined;
/** One key per process, so that every `chatgpt()` signs with the key the published JWKS holds. */
const signingKey = () =>
  (key ??= generateKeyPair('RS256', { extractable: true }).then(async ({ privateKey, publicKey }) => ({
    privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), kid: SIGNING_KEY_ID, use: 'sig', alg: 'RS256' },
  })));

export function chatgpt(): ShippingClient {
  const scopeOf = (discovery: Discovery) =>
    [
      ...new Set([...stringList(discovery.resourceMetadata, 'scopes_supported'), ...CHATGPT_OIDC_SCOPES]),
    ].join(' ');
  return {
    name: 'ChatGPT',
    documents: async () => ({
      [CHATGPT_METADATA_DOCUMENT]: CHATGPT_DOCUMENT,
      [CHATGPT_JWKS_URI]: { keys: [(await signingKey()).publicJwk] },
    }),
    register(discovery): RegistrationChoice {
      const issBound = discovery.serverMetadata['authorization_response_iss_parameter_supported'] === true;
      if (!advertisesMetadataDocuments(discovery) || !issBound) {
        throw new Error(
          'ChatGPT connects with its stable document only to a server with CIMD and RFC 9207 iss',
        );
      }
      return { kind: 'metadata-document', clientId: CHATGPT_METADATA_DOCUMENT };
    },
    redirect: () => ({ kind: 'hosted', uri: CHATGPT_REDIRECT }),
    authorizationParameters: (discovery, input) =>
      present([
        ['response_type', 'code'],
        ['client_id', input.clientId],
        ['redirect_uri', input.redirectUri],
        ['scope', scopeOf(discovery)],
        ['state', input.state],
        ['code_challenge', input.codeChallenge],
        ['code_challenge_method', 'S256'],
        ['resource', discovery.resource],
      ]),
    tokenParameters: (discovery, input) =>
      present([
        ['grant_type', 'authorization_code'],
        ['code', input.code],
        ['redirect_uri', input.redirectUri],
        ['code_verifier', input.codeVerifier],
        ['resource', discovery.resource],
      ]),
    authentication: (discovery) =>
      acceptsAuthentication(discovery, 'private_key_jwt') ? 'private_key_jwt' : 'none',
    async clientAssertion(clientId, audience) {
      const { privateKey } = await signingKey();
      return new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: SIGNING_KEY_ID, typ: 'JWT' })
        .setIssuer(clientId)
        .setSubject(clientId)
        .setAudience(audience)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    },
  };
}
