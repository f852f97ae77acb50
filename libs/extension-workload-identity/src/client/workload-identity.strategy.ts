/**
 * The client half of workload identity federation (MCP SEP-1933): the workload's platform-issued JWT (a Kubernetes
 * service account token, a SPIFFE JWT-SVID, a cloud workload identity token) is the `assertion` of an RFC 7523
 * jwt-bearer token request.
 *
 * Rules kept here:
 * - RFC 7523 2.1 and SEP-1933 step 1: `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`, `assertion` the
 *   workload JWT, and `scope` when there is one; the SDK's `requestToken` adds `resource` (RFC 8707 2) and the
 *   client's `client_id` when one is configured (a public client, `token_endpoint_auth_method` `none`).
 * - Platforms rotate workload tokens: the token is read again (from its function or its file) for every request,
 *   never kept.
 * - SEP-1933 and the conformance suite's `auth/wif-jwt-bearer`: a refusal (`invalid_grant`, `invalid_scope`,
 *   `unauthorized_client`) is final: it is thrown as a `WorkloadIdentityError` with that code, without a retry, and
 *   the SDK does not fall back to another grant (a strategy's failure is never a reason to authorize a user).
 * - SEP-1933 "Security Implications": the workload JWT never reaches an error message or its details.
 *
 * @see https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1933
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-2.1
 */
import { readFile } from 'node:fs/promises';
import type { ClientGrantContext, ClientGrantStrategy, TokenResponse } from '@portcullis/extensions';
import { JWT_BEARER_GRANT } from '../constants.js';

/**
 * Where the workload's JWT comes from: exactly one of `token` and `tokenFile`.
 *
 * @see https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1933
 */
export interface WorkloadIdentityStrategyOptions {
  /** Returns the current workload JWT; called for every token request. */
  readonly token?: () => string | Promise<string>;
  /** A file holding the workload JWT (a projected service account token, say); read for every token request. */
  readonly tokenFile?: string;
}

/**
 * Every failure of the strategy, by stable code: the authorization server's refusals, each final, and a workload
 * token that cannot be read.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-3.1
 */
export type WorkloadIdentityErrorCode =
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unauthorized_client'
  /** The token function failed, the file cannot be read, or it holds no JWT. */
  | 'workload_token_unavailable';

/**
 * A failed workload identity token request: a stable `code`, a message a person can act on, and `details` holding
 * URLs and codes only, never the workload JWT.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
export class WorkloadIdentityError extends Error {
  override readonly name = 'WorkloadIdentityError';

  constructor(
    readonly code: WorkloadIdentityErrorCode,
    message: string,
    readonly details: Readonly<Record<string, string | undefined>>,
    options: { cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** A compact JWS (RFC 7515 7.1): three base64url parts, the header starting `eyJ`. */
const COMPACT_JWS = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/u;
const FINAL_ERRORS: readonly WorkloadIdentityErrorCode[] = [
  'invalid_grant',
  'invalid_scope',
  'unauthorized_client',
];

/**
 * The client grant strategy of SEP-1933: the jwt-bearer grant with the workload's JWT. Throws a `TypeError` for
 * unusable options.
 *
 * @see https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1933
 */
export function workloadIdentityStrategy(options: WorkloadIdentityStrategyOptions): ClientGrantStrategy {
  if ((options.token === undefined) === (options.tokenFile === undefined)) {
    throw new TypeError('give exactly one of token or tokenFile');
  }
  if (options.token !== undefined && typeof options.token !== 'function') {
    throw new TypeError('token must be a function returning the workload JWT');
  }
  if (
    options.tokenFile !== undefined &&
    (typeof options.tokenFile !== 'string' || options.tokenFile === '')
  ) {
    throw new TypeError('tokenFile must be a file path');
  }
  return {
    grantType: JWT_BEARER_GRANT,
    async obtainToken(context: ClientGrantContext): Promise<TokenResponse> {
      const assertion = await readWorkloadToken(options);
      try {
        return await context.requestToken({
          grant_type: JWT_BEARER_GRANT,
          assertion,
          ...(context.scope.length === 0 ? {} : { scope: context.scope.join(' ') }),
        });
      } catch (error) {
        const code = oauthErrorCode(error);
        if (code === undefined || !FINAL_ERRORS.includes(code as WorkloadIdentityErrorCode)) throw error;
        throw new WorkloadIdentityError(
          code as WorkloadIdentityErrorCode,
          `${context.issuer} refused the workload JWT: ${code} (${EXPLANATIONS[code as keyof typeof EXPLANATIONS]}).`,
          { issuer: context.issuer, resource: context.resource, error: code },
          { cause: error },
        );
      }
    },
  };
}

const EXPLANATIONS = {
  invalid_grant: 'untrusted issuer, bad signature, wrong audience, expired or already used',
  invalid_scope: 'the requested scope is beyond what this workload may have',
  unauthorized_client: 'no trust rule covers this workload',
} as const;

/** The workload JWT, read now: platforms rotate it, so it is never cached. */
async function readWorkloadToken(options: WorkloadIdentityStrategyOptions): Promise<string> {
  const where = options.tokenFile === undefined ? 'the token function' : `the file ${options.tokenFile}`;
  let text: string;
  try {
    text =
      options.tokenFile === undefined
        ? await (options.token as () => string | Promise<string>)()
        : await readFile(options.tokenFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    throw new WorkloadIdentityError(
      'workload_token_unavailable',
      `The workload JWT cannot be read from ${where}${typeof code === 'string' ? ` (${code})` : ''}.`,
      { ...(options.tokenFile === undefined ? {} : { tokenFile: options.tokenFile }) },
      { cause: error },
    );
  }
  const token = typeof text === 'string' ? text.trim() : '';
  if (!COMPACT_JWS.test(token)) {
    throw new WorkloadIdentityError(
      'workload_token_unavailable',
      `${where[0]?.toUpperCase()}${where.slice(1)} holds no workload JWT (a compact JWS).`,
      { ...(options.tokenFile === undefined ? {} : { tokenFile: options.tokenFile }) },
    );
  }
  return token;
}

/**
 * The RFC 6749 5.2 `error` of what `requestToken` threw, if it carries one: the SDK's error holds it as
 * `authorizationServerError.error` (and `details.error`).
 */
function oauthErrorCode(error: unknown): string | undefined {
  const thrown = error as
    { authorizationServerError?: { error?: unknown }; details?: { error?: unknown } } | undefined;
  const code = thrown?.authorizationServerError?.error ?? thrown?.details?.error;
  return typeof code === 'string' ? code : undefined;
}
