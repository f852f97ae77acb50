/**
 * The authentication of one request to a protected resource, whichever framework received it: the NestJS guard,
 * `protect` (web-standard handlers) and the Express middleware all run these rules, in this order.
 *
 * Checks, in order:
 * 1. `token-in-query`: no `access_token` in the query string (400 `invalid_request`).
 * 2. `token-in-body`: no `access_token` in the parsed body (400 `invalid_request`).
 * 3. `authorization-header`: at most one `Authorization` field, a well-formed credential when the scheme is
 *    Bearer, or the composed proof-of-possession scheme (`DPoP`) (400 `invalid_request`).
 * 4. The scopes the operation needs, decided by the caller (declared, or resolved from the request).
 * 5. No access token: 401 with the challenge and no error (RFC 6750 Section 3.1).
 * 6. The token, through the token verifier: 401 `invalid_token` (or 503 when the authorization server cannot be
 *    reached).
 * 7. `token-binding`, with a proof-of-possession extension composed: the token's binding against the scheme it
 *    came with, and the request's proof, on every request (RFC 9449 Section 7): 401 `invalid_token`,
 *    `invalid_dpop_proof` or `use_dpop_nonce`.
 * 8. Scope sufficiency with the hierarchy (MCP 2026-07-28 "Step-Up Authorization Flow"): 403 `insufficient_scope`
 *    naming every needed scope.
 * Every refusal leaves as a {@link BearerChallengeError}, which the adapter turns into the response
 * (`refusal.ts`); the accepted request's {@link AuthInfo} never holds the token.
 */
import type { ResourceServerProofOfPossession } from '@portcullis/extensions';
import { formatScope, isScopeToken, missingScopes, OAuthError } from '@portcullis/protocol';
import type { ResourceServerConfig } from '../config/resource-server.config.js';
import { BearerChallengeError } from '../errors/bearer-challenge.error.js';
import { validatePresented, type TokenVerifier } from '../tokens/token-verifier.service.js';
import type { AuthInfo } from './auth-info.js';
import type { BearerRequest } from './bearer-request.js';
import { readAccessToken, type PresentedCredentials } from './checks/authorization-header.check.js';
import type { RequestCheck } from './checks/request-check.js';
import { checkTokenBinding } from './checks/token-binding.check.js';
import { checkNoTokenInBody } from './checks/token-in-body.check.js';
import { checkNoTokenInQuery } from './checks/token-in-query.check.js';
import { httpRequestView } from './request-view.js';

const REQUEST_CHECKS: readonly RequestCheck[] = [checkNoTokenInQuery, checkNoTokenInBody];

/**
 * The scopes an operation needs: every one of them (MCP 2026-07-28 "Runtime Insufficient Scope Errors"), `[]` for
 * any valid token. Asked once the request's credentials are read, before the token is validated, so even a missing
 * token's 401 names them (MCP 2026-07-28 "Scope Selection Strategy"). Throwing an `OAuthError` refuses the request
 * with it.
 */
export type RequiredScopes = () => readonly string[] | Promise<readonly string[]>;

const NO_SCOPES: RequiredScopes = () => [];

/**
 * Step 6: the token's {@link AuthInfo} (at once when it is known already, a cached verdict), or an `OAuthError`
 * (`invalid_token`, `temporarily_unavailable`). The token is as step 3 read it: its RFC 6750 `b64token` syntax is
 * checked, its length not yet.
 */
export type TokenValidation = (token: string) => AuthInfo | Promise<AuthInfo>;

// The checked form of each frozen scope list seen (a route's declared scopes, the same array on every request).
const CHECKED = new WeakMap<readonly string[], readonly string[]>();

function checkedScopes(scopes: readonly string[]): readonly string[] {
  const known = CHECKED.get(scopes);
  if (known !== undefined) return known;
  const unique = [...new Set(scopes)];
  const invalid = unique.find((scope) => typeof scope !== 'string' || !isScopeToken(scope));
  if (invalid !== undefined) throw new TypeError(`required scope "${String(invalid)}" is not a scope-token`);
  if (Object.isFrozen(scopes)) CHECKED.set(scopes, Object.freeze(unique));
  return unique;
}

// Awaited only when it is a promise: a value known at once costs no turn of the microtask queue.
const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => value instanceof Promise;

/**
 * Authenticates requests for one resource.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750 RFC 6750}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9449#section-7 RFC 9449 Section 7}
 * @see {@link https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-handling MCP Token Handling}
 */
export class RequestAuthenticator {
  // The public origin proofs name (RFC 9449 Section 4.3 item 9): the resource's, never the Host header.
  readonly #origin: string;

  readonly #validate: TokenValidation;

  /** For each granted scope list, the required lists it was found to cover (both frozen, so the same each time). */
  readonly #covered = new WeakMap<readonly string[], WeakSet<readonly string[]>>();

  /**
   * @param validate step 6, the token's validation: the verifier's by default; an adapter may route it through its
   *   framework's own authentication (the NestJS adapter's passport strategy) as long as it ends in the verifier.
   */
  constructor(
    private readonly config: ResourceServerConfig,
    verifier: TokenVerifier,
    validate?: TokenValidation,
  ) {
    this.#origin = new URL(config.resource).origin;
    this.#validate = validate ?? ((token) => validatePresented(verifier, token));
  }

  /**
   * The request's {@link AuthInfo} when its token is valid for this resource and covers `requiredScopes`.
   *
   * @throws BearerChallengeError for every refusal (400, 401, 403, 503); any other error is unexpected (a
   *   resolver returning something that is not a scope-token, an extension breaking its contract).
   */
  async authenticate(request: BearerRequest, requiredScopes: RequiredScopes = NO_SCOPES): Promise<AuthInfo> {
    return this.authenticateNow(request, requiredScopes);
  }

  /**
   * {@link authenticate}, answered at once when nothing needs waiting for (a cached verdict, declared scopes, no
   * proof of possession): the `AuthInfo`, or a thrown refusal; else a promise of it. For an adapter on a hot path
   * (the NestJS route hook), where a promise and a turn of the microtask queue per request are a measurable share.
   *
   * @throws BearerChallengeError as {@link authenticate} rejects, synchronously or through the promise.
   */
  authenticateNow(
    request: BearerRequest,
    requiredScopes: RequiredScopes = NO_SCOPES,
  ): AuthInfo | Promise<AuthInfo> {
    const refusal: Refusal = { required: NO_REQUIRED, presentedWith: 'bearer' };
    try {
      const outcome = this.#checkRequest(request, requiredScopes, refusal);
      return isPromise(outcome)
        ? outcome.catch((error: unknown) => Promise.reject(refused(error, refusal)))
        : outcome;
    } catch (error) {
      throw refused(error, refusal);
    }
  }

  /** Steps 1-4, then the rest once the scopes are known. */
  #checkRequest(
    request: BearerRequest,
    requiredScopes: RequiredScopes,
    refusal: Refusal,
  ): AuthInfo | Promise<AuthInfo> {
    for (const check of REQUEST_CHECKS) check(request);
    const proof = this.config.extensions.resourceServerProofOfPossession();
    const credentials = readAccessToken(request, proof?.scheme);
    const scopes = requiredScopes();
    return isPromise(scopes)
      ? scopes.then((resolved) => this.#checkToken(request, proof, credentials, resolved, refusal))
      : this.#checkToken(request, proof, credentials, scopes, refusal);
  }

  /** Steps 5-8. */
  #checkToken(
    request: BearerRequest,
    proof: ResourceServerProofOfPossession | undefined,
    credentials: PresentedCredentials | undefined,
    scopes: readonly string[],
    refusal: Refusal,
  ): AuthInfo | Promise<AuthInfo> {
    const required = checkedScopes(scopes);
    refusal.required = required;
    if (credentials === undefined) throw new BearerChallengeError(undefined, required);
    refusal.presentedWith = credentials.scheme;
    const validated = this.#validate(credentials.token);
    if (proof === undefined) {
      return isPromise(validated)
        ? validated.then((auth) => this.#covers(auth, required))
        : this.#covers(validated, required);
    }
    const bound = async (auth: AuthInfo) => {
      await checkTokenBinding(proof, credentials, auth, httpRequestView(request, this.#origin), {
        resource: this.config.resource,
        revision: this.config.revision.id,
      });
      return this.#covers(auth, required);
    };
    return isPromise(validated) ? validated.then(bound) : bound(validated);
  }

  /** Step 8: the token's scopes, with the hierarchy, cover what the operation needs. */
  #covers(auth: AuthInfo, required: readonly string[]): AuthInfo {
    const known = this.#covered.get(auth.scopes);
    if (known?.has(required)) return auth;
    if (missingScopes(auth.scopes, required, this.config.scopeHierarchy).length > 0) {
      throw new OAuthError('insufficient_scope', `This operation needs the scope ${formatScope(required)}.`);
    }
    // Both lists frozen (a cached verdict's scopes, a route's declared scopes): the answer cannot change.
    if (Object.isFrozen(auth.scopes) && Object.isFrozen(required)) {
      if (known === undefined) this.#covered.set(auth.scopes, new WeakSet([required]));
      else known.add(required);
    }
    return auth;
  }
}

/** What a refusal's challenge names: the scopes needed once known, and the scheme the token came with. */
interface Refusal {
  required: readonly string[];
  presentedWith: 'bearer' | 'proof';
}

const NO_REQUIRED: readonly string[] = Object.freeze([]);

/** An `OAuthError` as the challenge it is answered with; anything else as it is (unexpected: a 500). */
function refused(error: unknown, refusal: Refusal): unknown {
  return error instanceof OAuthError
    ? new BearerChallengeError(error, refusal.required, refusal.presentedWith)
    : error;
}
