// Rules kept:
// - SEP-990 section 4 and RFC 8693 2.1: the token exchange is a form POST to the IdP's token endpoint with
//   `grant_type` token-exchange, the ID token as `subject_token` (`subject_token_type` id_token),
//   `requested_token_type` id-jag, `audience` the MCP authorization server's issuer, `resource` the MCP server's
//   resource identifier (RFC 9728) and `scope` when there is one. The IdP client authenticates with
//   `client_secret_basic` (RFC 6749 2.3.1, both parts form-urlencoded, Appendix B) when it has a secret,
//   `private_key_jwt` (RFC 7523 2.2 and 3: a fresh assertion for the IdP's token endpoint) when it has a key, else
//   names itself with `client_id` (RFC 6749 3.2.1).
// - SEP-990 section 4.2 and RFC 8693 2.2.1: the answer is accepted only with `issued_token_type` id-jag and an
//   `access_token` that is a compact JWT whose JOSE `typ` is `oauth-id-jag+jwt` (SEP-990 section 4.3, compared as
//   RFC 7515 4.1.9 says). The client decodes it (the header, and a signed one's `scope` claim) and never verifies
//   it: the MCP authorization server does (and it may be encrypted to that server, SEP-990 section 6.4.3).
// - SEP-990 section 6.3: a redirect from the IdP token endpoint is not followed: the ID token would go with it.
// - SEP-990 sections 6.4.2 and 6.5.4: no error carries the ID token, the IdP client secret or the ID-JAG.
import type { ClientGrantContext } from '@portcullis/extensions';
import { isScopeToken } from '@portcullis/protocol';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { ID_JAG_TOKEN_TYPE, ID_JAG_TYP, ID_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT } from '../constants.js';
import { IdJagError, readIdpError } from './id-jag.error.js';
import type { IdJagStrategyOptions, IdpPrivateKey } from './id-jag-strategy.options.js';

/** One part of a compact JWS or JWE: base64url (RFC 7515 2). */
const BASE64URL = /^[A-Za-z0-9_-]*$/u;
/** The `client_assertion_type` of a JWT client assertion (RFC 7523 2.2). */
const JWT_BEARER_CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** An ID-JAG the IdP issued, and the scope it named (the response's `scope`, else the ID-JAG's claim), if any. */
export interface ExchangedIdJag {
  readonly idJag: string;
  readonly scope?: string;
}

/** The form and headers of a token exchange request at the IdP. */
export interface TokenExchangeRequest {
  readonly body: URLSearchParams;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * RFC 8693 2.1 at the IdP: sends the request and returns the ID-JAG; throws {@link IdJagError} for every failure.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.1
 */
export async function exchangeIdToken(
  options: IdJagStrategyOptions,
  endpoint: URL,
  context: ClientGrantContext,
): Promise<ExchangedIdJag> {
  const { body, headers } = await tokenExchangeRequest(options, endpoint, context);
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
      where(endpoint, context),
      { cause: error },
    );
  }
  return processTokenExchangeResponse(response, options, endpoint, context);
}

/**
 * The token exchange request (RFC 8693 2.1), with the IdP client's authentication.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.1
 */
export async function tokenExchangeRequest(
  options: IdJagStrategyOptions,
  endpoint: URL,
  context: ClientGrantContext,
): Promise<TokenExchangeRequest> {
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
  return { body, headers };
}

/**
 * The IdP's answer (RFC 8693 2.2): the ID-JAG of a 200 that is one, else an {@link IdJagError} saying why.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.2
 */
export async function processTokenExchangeResponse(
  response: Response,
  options: IdJagStrategyOptions,
  endpoint: URL,
  context: ClientGrantContext,
): Promise<ExchangedIdJag> {
  const text = await response.text().catch(() => '');
  const json = parseJsonObject(text);
  if (response.status !== 200) {
    const idpError = readIdpError(json, [options.idToken, options.idpClientSecret]);
    const reason =
      idpError === undefined
        ? response.status >= 300 && response.status < 400
          ? 'a redirect, which is not followed'
          : 'no OAuth error response'
        : `${idpError.error}${idpError.errorDescription === undefined ? '' : ` (${idpError.errorDescription})`}`;
    throw new IdJagError(
      'token_exchange_refused',
      `The IdP ${endpoint.href} refused to exchange the ID token for an ID-JAG for ${context.issuer}: HTTP ${response.status}, ${reason}.`,
      { ...where(endpoint, context), status: response.status, error: idpError?.error },
      idpError === undefined ? {} : { idpError },
    );
  }
  const invalid = (problem: string): IdJagError =>
    new IdJagError(
      'invalid_token_exchange_response',
      `The IdP ${endpoint.href} answered the token exchange with no usable ID-JAG: ${problem}.`,
      { ...where(endpoint, context), status: response.status },
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

/** Where a failure happened: URLs only, never a credential. */
function where(endpoint: URL, context: ClientGrantContext): Record<string, string> {
  return { idpTokenEndpoint: endpoint.href, audience: context.issuer, resource: context.resource };
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

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.message : String(error);
}
