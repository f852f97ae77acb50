/**
 * The client half of `io.modelcontextprotocol/enterprise-managed-authorization` (MCP SEP-990): the user's ID token
 * from the enterprise IdP is exchanged there for an Identity Assertion JWT Authorization Grant (ID-JAG), which the
 * MCP authorization server redeems for an access token.
 *
 * Rules kept here:
 * - SEP-990 section 4 and RFC 8693 2.1: the token exchange is a form POST to the IdP's token endpoint with
 *   `grant_type` token-exchange, the ID token as `subject_token` (`subject_token_type` id_token),
 *   `requested_token_type` id-jag, `audience` the MCP authorization server's issuer, `resource` the MCP server's
 *   resource identifier (RFC 9728) and `scope` when there is one. The IdP client authenticates with
 *   `client_secret_basic` (RFC 6749 2.3.1) when it has a secret, `private_key_jwt` (RFC 7523 2.2) when it has a key,
 *   else names itself with `client_id` (RFC 6749 3.2.1).
 * - SEP-990 section 4.2 and RFC 8693 2.2.1: the answer is accepted only with `issued_token_type` id-jag and an
 *   `access_token` that is a compact JWT whose JOSE `typ` is `oauth-id-jag+jwt` (SEP-990 section 4.3). The client
 *   decodes it (the header, and a signed one's `scope` claim) and never verifies it: the MCP authorization server
 *   does (and it may be encrypted to that server, SEP-990 section 6.4.3).
 * - SEP-990 section 5 and RFC 7523 2.1: the ID-JAG is the `assertion` of a `jwt-bearer` token request; the SDK's
 *   `requestToken` adds `resource` (RFC 8707 2) and the client's authentication at the MCP authorization server.
 * - SEP-990 section 6.3: the IdP token endpoint is https (plain http only on a loopback host), and a redirect from it
 *   is not followed: the ID token would go with it.
 * - SEP-990 sections 6.4.2 and 6.5.4: the ID token, the IdP client secret and the ID-JAG never reach an error; the
 *   IdP's `error_description` is shown only when it is RFC 6749 5.2 text that does not repeat a credential, with
 *   anything shaped like a JWT cut out.
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-2.1
 */
import type { ClientGrantContext, ClientGrantStrategy, TokenResponse } from '@portcullis/extensions';
import { ASYMMETRIC_SIGNING_ALGORITHMS, isLoopbackHost, isScopeToken } from '@portcullis/protocol';
import { decodeJwt, decodeProtectedHeader, SignJWT, type CryptoKey } from 'jose';
import {
  ID_JAG_TOKEN_TYPE,
  ID_JAG_TYP,
  ID_TOKEN_TYPE,
  JWT_BEARER_GRANT,
  TOKEN_EXCHANGE_GRANT,
} from '../constants.js';

/**
 * What the client needs from the enterprise IdP: the user's ID token from single sign-on and the IdP client it was
 * issued to.
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx
 */
export interface IdJagStrategyOptions {
  /** The user's OpenID Connect ID token, issued by the IdP to `idpClientId` (SEP-990 section 3). */
  readonly idToken: string;
  /** The IdP's token endpoint, where the ID token is exchanged for an ID-JAG (RFC 8693 2.1). */
  readonly idpTokenEndpoint: string;
  /** The client's ID at the IdP (the ID token's `aud`). */
  readonly idpClientId?: string;
  /** Its secret at the IdP, sent with `client_secret_basic` (RFC 6749 2.3.1). Needs `idpClientId`. */
  readonly idpClientSecret?: string;
  /**
   * Its private key at the IdP, for `private_key_jwt` (RFC 7523 2.2): each exchange carries a fresh assertion with
   * `iss` = `sub` = `idpClientId` and `aud` the IdP's token endpoint (RFC 7523 3). Needs `idpClientId`; not with
   * `idpClientSecret`.
   */
  readonly idpPrivateKey?: IdpPrivateKey;
}

/**
 * A private key the client authenticates at the IdP with: the key, its JWS algorithm, and its `kid` if any (the
 * shape of `@portcullis/client`'s `importClientAssertionKey` result, which can be passed as is).
 */
export interface IdpPrivateKey {
  readonly privateKey: CryptoKey;
  readonly algorithm: string;
  readonly keyId?: string | undefined;
}

/**
 * Every failure of the token exchange, by stable code.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.2
 */
export type IdJagErrorCode =
  /** The IdP's token endpoint could not be reached (network failure). */
  | 'idp_request_failed'
  /** The IdP answered the token exchange with an error (RFC 6749 5.2), a redirect, or any status but 200. */
  | 'token_exchange_refused'
  /** The IdP answered 200 with something that is not an ID-JAG (SEP-990 sections 4.2 and 4.3). */
  | 'invalid_token_exchange_response'
  /** The IdP's ID-JAG carries none of the scope the client requested (RFC 8693 2.2.1 `scope`). */
  | 'scope_not_granted';

/** The IdP's own error (RFC 6749 5.2), as far as it may be shown. */
export interface IdpError {
  readonly error: string;
  readonly errorDescription?: string;
}

/**
 * A failed token exchange at the enterprise IdP: a stable `code`, a message a person can act on, and `details`
 * holding URLs, statuses and codes only, never a token or a secret.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.2.2
 */
export class IdJagError extends Error {
  override readonly name = 'IdJagError';

  constructor(
    readonly code: IdJagErrorCode,
    message: string,
    readonly details: Readonly<Record<string, string | number | undefined>>,
    options: { cause?: unknown; idpError?: IdpError } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.idpError = options.idpError;
  }

  /** What the IdP said, when it sent a well-formed error response. */
  readonly idpError: IdpError | undefined;
}

/** RFC 6749 5.2: `error` and `error_description` are %x20-21 / %x23-5B / %x5D-7E. */
const ERROR_TEXT = /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/u;
/** One part of a compact JWS or JWE: base64url (RFC 7515 2). */
const BASE64URL = /^[A-Za-z0-9_-]*$/u;
/** Anything in a message that looks like a JWT: removed before an IdP's text is shown. */
const JWT_LIKE = /[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/gu;
const MAX_DESCRIPTION = 200;
/** The `client_assertion_type` of a JWT client assertion (RFC 7523 2.2). */
const JWT_BEARER_CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * The client grant strategy of SEP-990: token exchange at the IdP (RFC 8693), then the `jwt-bearer` grant
 * (RFC 7523) at the MCP authorization server. Throws a `TypeError` for unusable options.
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx
 */
export function idJagStrategy(options: IdJagStrategyOptions): ClientGrantStrategy {
  const endpoint = checkOptions(options);
  return {
    grantType: JWT_BEARER_GRANT,
    async obtainToken(context: ClientGrantContext): Promise<TokenResponse> {
      const exchanged = await exchangeIdToken(options, endpoint, context);
      const scope = redeemedScope(context, exchanged.scope, endpoint);
      return context.requestToken({
        grant_type: JWT_BEARER_GRANT,
        assertion: exchanged.idJag,
        ...(scope.length === 0 ? {} : { scope: scope.join(' ') }),
      });
    },
  };
}

/**
 * The scope of the jwt-bearer request. RFC 8693 2.2.1: the IdP names `scope` when it granted other than was
 * requested; SEP-990 section 6.2.1: the MCP authorization server issues what is both requested and in the ID-JAG. So
 * the request names what the IdP granted (the response's `scope`, else the ID-JAG's `scope` claim), narrowed to the
 * scope the SDK chose (never more than either); with neither, the chosen scope. An IdP that granted none of a non-empty chosen scope is a failure here,
 * not a token with a scope nobody asked for.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.2.1
 */
function redeemedScope(context: ClientGrantContext, granted: string | undefined, endpoint: URL): string[] {
  if (granted === undefined) return [...context.scope];
  const grantedScope = granted.split(' ');
  if (context.scope.length === 0) return grantedScope;
  const scope = context.scope.filter((value) => grantedScope.includes(value));
  if (scope.length === 0) {
    throw new IdJagError(
      'scope_not_granted',
      `The IdP ${endpoint.href} granted none of the requested scope (${context.scope.join(' ')}) in the ID-JAG (it granted ${granted}).`,
      { idpTokenEndpoint: endpoint.href, audience: context.issuer, resource: context.resource },
    );
  }
  return scope;
}

function checkOptions(options: IdJagStrategyOptions): URL {
  if (typeof options.idToken !== 'string' || !/^[\x21-\x7E]+$/u.test(options.idToken)) {
    throw new TypeError('idToken must be the ID token: a non-empty string of visible ASCII characters');
  }
  let endpoint: URL;
  try {
    endpoint = new URL(options.idpTokenEndpoint);
  } catch {
    throw new TypeError('idpTokenEndpoint must be an absolute URL');
  }
  // SEP-990 section 6.3 (TLS for token endpoints); RFC 6749 3.2: no fragment. No userinfo: credentials go in the header.
  if (
    endpoint.protocol !== 'https:' &&
    !(endpoint.protocol === 'http:' && isLoopbackHost(endpoint.hostname))
  ) {
    throw new TypeError('idpTokenEndpoint must be an https URL (http only on a loopback host)');
  }
  if (endpoint.hash !== '' || options.idpTokenEndpoint.includes('#')) {
    throw new TypeError('idpTokenEndpoint must not have a fragment');
  }
  if (endpoint.username !== '' || endpoint.password !== '') {
    throw new TypeError('idpTokenEndpoint must not have userinfo');
  }
  if (options.idpClientId !== undefined && options.idpClientId === '') {
    throw new TypeError('idpClientId must not be empty');
  }
  if (options.idpClientSecret !== undefined && options.idpClientId === undefined) {
    throw new TypeError('idpClientSecret needs idpClientId');
  }
  if (options.idpPrivateKey !== undefined) {
    if (options.idpClientId === undefined) throw new TypeError('idpPrivateKey needs idpClientId');
    if (options.idpClientSecret !== undefined) {
      throw new TypeError('give idpClientSecret or idpPrivateKey, not both');
    }
    if (!(ASYMMETRIC_SIGNING_ALGORITHMS as readonly string[]).includes(options.idpPrivateKey.algorithm)) {
      throw new TypeError('idpPrivateKey.algorithm must be an asymmetric JWS algorithm (RFC 8725 3.1)');
    }
  }
  return endpoint;
}

/**
 * RFC 8693 2.1 at the IdP; returns the ID-JAG and the scope the IdP named, if any.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.1
 */
async function exchangeIdToken(
  options: IdJagStrategyOptions,
  endpoint: URL,
  context: ClientGrantContext,
): Promise<{ idJag: string; scope?: string }> {
  const body = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT,
    subject_token: options.idToken,
    subject_token_type: ID_TOKEN_TYPE,
    requested_token_type: ID_JAG_TOKEN_TYPE,
    audience: context.issuer,
    resource: context.resource,
  });
  if (context.scope.length > 0) body.set('scope', context.scope.join(' '));
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (options.idpClientId !== undefined && options.idpClientSecret !== undefined) {
    // RFC 6749 2.3.1: both form-urlencoded (Appendix B) before they are joined and base64-encoded.
    const credentials = `${formEncode(options.idpClientId)}:${formEncode(options.idpClientSecret)}`;
    headers['authorization'] = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
  } else if (options.idpClientId !== undefined && options.idpPrivateKey !== undefined) {
    body.set('client_id', options.idpClientId);
    body.set('client_assertion_type', JWT_BEARER_CLIENT_ASSERTION_TYPE);
    body.set('client_assertion', await clientAssertion(options.idpClientId, options.idpPrivateKey, endpoint));
  } else if (options.idpClientId !== undefined) {
    body.set('client_id', options.idpClientId);
  }
  const where = { idpTokenEndpoint: endpoint.href, audience: context.issuer, resource: context.resource };

  let response: Response;
  try {
    response = await context.fetch(endpoint.href, {
      method: 'POST',
      headers,
      body: body.toString(),
      redirect: 'manual',
    });
  } catch (error) {
    throw new IdJagError(
      'idp_request_failed',
      `The token exchange at the IdP ${endpoint.href} failed: ${describeNetworkError(error)}.`,
      where,
      { cause: error },
    );
  }
  const text = await response.text().catch(() => '');
  const json = parseJsonObject(text);
  if (response.status !== 200) {
    const idpError = readIdpError(json, options);
    const reason =
      idpError === undefined
        ? response.status >= 300 && response.status < 400
          ? 'a redirect, which is not followed'
          : 'no OAuth error response'
        : `${idpError.error}${idpError.errorDescription === undefined ? '' : ` (${idpError.errorDescription})`}`;
    throw new IdJagError(
      'token_exchange_refused',
      `The IdP ${endpoint.href} refused to exchange the ID token for an ID-JAG for ${context.issuer}: HTTP ${response.status}, ${reason}.`,
      { ...where, status: response.status, error: idpError?.error },
      idpError === undefined ? {} : { idpError },
    );
  }
  const invalid = (problem: string): IdJagError =>
    new IdJagError(
      'invalid_token_exchange_response',
      `The IdP ${endpoint.href} answered the token exchange with no usable ID-JAG: ${problem}.`,
      { ...where, status: response.status },
    );
  if (json === undefined) throw invalid('the response is not a JSON object');
  if (json['issued_token_type'] !== ID_JAG_TOKEN_TYPE) {
    throw invalid(`issued_token_type is not ${ID_JAG_TOKEN_TYPE}`);
  }
  const idJag = json['access_token'];
  if (typeof idJag !== 'string' || !isCompactJose(idJag)) {
    throw invalid('access_token is not a compact JWT');
  }
  let typ: unknown;
  try {
    typ = decodeProtectedHeader(idJag).typ;
  } catch {
    throw invalid('access_token is not a compact JWT (its header cannot be decoded)');
  }
  if (!isIdJagTyp(typ)) throw invalid(`its JOSE header typ is not ${ID_JAG_TYP}`);
  const scope = json['scope'];
  if (scope !== undefined && (typeof scope !== 'string' || !isScope(scope))) {
    throw invalid('scope is not a space-separated list of scope tokens');
  }
  const granted = scope ?? claimedScope(idJag);
  return granted === undefined ? { idJag } : { idJag, scope: granted };
}

/**
 * The `scope` claim of a signed ID-JAG (SEP-990 section 4.3), decoded but not verified, for an IdP that narrowed the
 * scope in the grant without saying so in the response; `undefined` for an encrypted one or one without a usable claim.
 */
function claimedScope(idJag: string): string | undefined {
  if (idJag.split('.').length !== 3) return undefined;
  try {
    const claim = decodeJwt(idJag)['scope'];
    return typeof claim === 'string' && isScope(claim) ? claim : undefined;
  } catch {
    return undefined;
  }
}

function isScope(value: string): boolean {
  return value.split(' ').every(isScopeToken);
}

/** RFC 7515 4.1.9: `typ` compares case-insensitively, and `application/` may be left out. */
function isIdJagTyp(typ: unknown): boolean {
  if (typeof typ !== 'string') return false;
  const lower = typ.toLowerCase();
  return lower === ID_JAG_TYP || lower === `application/${ID_JAG_TYP}`;
}

/** A compact JWS (RFC 7515 7.1: three parts) or JWE (RFC 7516 7.1: five parts) with a header. */
function isCompactJose(value: string): boolean {
  const parts = value.split('.');
  return (
    (parts.length === 3 || parts.length === 5) &&
    parts[0] !== '' &&
    parts.every((part) => BASE64URL.test(part))
  );
}

/**
 * A fresh `private_key_jwt` assertion for the IdP (RFC 7523 2.2 and 3): `iss` = `sub` = the client, `aud` the token
 * endpoint, a random `jti`, valid for a minute.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-3
 */
function clientAssertion(clientId: string, key: IdpPrivateKey, endpoint: URL): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: key.algorithm, ...(key.keyId === undefined ? {} : { kid: key.keyId }) })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(endpoint.href)
    .setIssuedAt()
    .setExpirationTime('60s')
    .setJti(crypto.randomUUID())
    .sign(key.privateKey);
}

function formEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The IdP's RFC 6749 5.2 error, with a description only when it is plain error text of a reasonable length, and
 * without the ID token, the IdP client secret or anything JWT-shaped an IdP might echo.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
function readIdpError(
  json: Record<string, unknown> | undefined,
  options: IdJagStrategyOptions,
): IdpError | undefined {
  const error = json?.['error'];
  if (typeof error !== 'string' || error.length > 100 || !ERROR_TEXT.test(error)) return undefined;
  const description = json?.['error_description'];
  if (
    typeof description !== 'string' ||
    description.length > MAX_DESCRIPTION ||
    !ERROR_TEXT.test(description)
  ) {
    return { error };
  }
  // A description that repeats a credential is not shown at all; JWT-shaped text (another token) is cut out.
  if (
    [options.idToken, options.idpClientSecret].some(
      (secret) => secret !== undefined && description.includes(secret),
    )
  ) {
    return { error };
  }
  return { error, errorDescription: description.replace(JWT_LIKE, '[redacted]') };
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.message : String(error);
}
