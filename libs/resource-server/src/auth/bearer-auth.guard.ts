/**
 * The guard of every protected route.
 *
 * Checks, in order:
 * 1. `token-in-query`: no `access_token` in the query string (400 `invalid_request`).
 * 2. `token-in-body`: no `access_token` in the body (400 `invalid_request`).
 * 3. `authorization-header`: at most one `Authorization` field, a well-formed credential when the scheme is
 *    Bearer, or the composed proof-of-possession scheme (`DPoP`) (400 `invalid_request`).
 * 4. The scopes the operation needs, from `@RequireScopes` or the route's resolver.
 * 5. No access token: 401 with the challenge and no error (RFC 6750 Section 3.1).
 * 6. The token, through passport and the token verifier: 401 `invalid_token` (or 503 when the authorization
 *    server cannot be reached).
 * 7. `token-binding`, with a proof-of-possession extension composed: the token's binding against the scheme it
 *    came with, and the request's proof, on every request (RFC 9449 Section 7): 401 `invalid_token`,
 *    `invalid_dpop_proof` or `use_dpop_nonce`.
 * 8. Scope sufficiency with the hierarchy (MCP 2026-07-28 "Step-Up Authorization Flow"): 403 `insufficient_scope`
 *    naming every needed scope.
 * The request then carries the {@link AuthInfo} (see `CurrentAuth`), never the token.
 */
import { Inject, Injectable, type CanActivate, type ExecutionContext, type Type } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { AuthGuard, type IAuthGuard } from '@nestjs/passport';
import { formatScope, isScopeToken, missingScopes, OAuthError } from '@portcullis/protocol';
import type { ResourceServerConfig } from '../config/resource-server.config.js';
import { BearerChallengeError } from '../errors/bearer-challenge.error.js';
import {
  AUTH_INFO_PROPERTY,
  BEARER_STRATEGY_NAME,
  REQUIRED_SCOPES_METADATA,
  RESOURCE_SERVER_CONFIG,
  SCOPE_RESOLVER_METADATA,
} from '../resource-server.constants.js';
import type { AuthInfo } from './auth-info.js';
import type { BearerRequest } from './bearer-request.js';
import { httpRequestView } from './request-view.js';
import { readAccessToken } from './checks/authorization-header.check.js';
import type { RequestCheck } from './checks/request-check.js';
import { checkTokenBinding } from './checks/token-binding.check.js';
import { checkNoTokenInBody } from './checks/token-in-body.check.js';
import { checkNoTokenInQuery } from './checks/token-in-query.check.js';
import type { RequiredScopesResolver, RequiredScopesResolverType } from './scope-resolver.js';

const REQUEST_CHECKS: readonly RequestCheck[] = [checkNoTokenInQuery, checkNoTokenInBody];

// What passport is shown: only the one credential the checks above accepted, so its own extraction (which would
// also look at the body and the query) can never disagree with them.
const PASSPORT_VIEW = Symbol('portcullis:passport-view');

interface PassportView {
  headers: { authorization: string };
  [AUTH_INFO_PROPERTY]?: AuthInfo;
}

const passportGuards = new Map<string, Type<IAuthGuard>>();

function passportGuardFor(strategyName: string): Type<IAuthGuard> {
  let guard = passportGuards.get(strategyName);
  if (!guard) {
    class PassportBearerGuard extends AuthGuard(strategyName) {
      override getRequest(context: ExecutionContext): PassportView {
        const view = context.switchToHttp().getRequest<Record<symbol, PassportView | undefined>>()[
          PASSPORT_VIEW
        ];
        if (!view) throw new Error('the passport guard runs only inside BearerAuthGuard');
        return view;
      }

      override handleRequest<TUser>(error: unknown, user: TUser | false): TUser {
        if (error) throw error;
        if (!user) throw new OAuthError('invalid_token', 'The access token could not be read.');
        return user;
      }
    }
    guard = PassportBearerGuard;
    passportGuards.set(strategyName, guard);
  }
  return guard;
}

/**
 * Bearer authentication and scope enforcement for protected routes; applied by `@Protected()`,
 * `@RequireScopes(...)` and `@ResolveScopes(...)`.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750 RFC 6750}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-5.1 RFC 9728 Section 5.1}
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  readonly #passport: IAuthGuard;
  readonly #resolvers = new Map<RequiredScopesResolverType, RequiredScopesResolver<unknown>>();
  // The public origin proofs name (RFC 9449 Section 4.3 item 9): the resource's, never the Host header.
  readonly #origin: string;

  constructor(
    @Inject(RESOURCE_SERVER_CONFIG) private readonly config: ResourceServerConfig,
    @Inject(BEARER_STRATEGY_NAME) strategyName: string,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
  ) {
    const PassportGuard = passportGuardFor(strategyName);
    this.#passport = new PassportGuard({ session: false, property: AUTH_INFO_PROPERTY });
    this.#origin = new URL(config.resource).origin;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<BearerRequest & Record<string | symbol, unknown>>();
    for (const check of REQUEST_CHECKS) check(request);
    const proof = this.config.extensions.resourceServerProofOfPossession();
    const credentials = readAccessToken(request, proof?.scheme);
    const required = await this.requiredScopes(context, request);
    if (credentials === undefined) throw new BearerChallengeError(undefined, required);
    const presentedWith = credentials.scheme;

    // Passport validates the token whatever scheme carried it: it is shown the `Bearer` view of the same token.
    const view: PassportView = { headers: { authorization: `Bearer ${credentials.token}` } };
    request[PASSPORT_VIEW] = view;
    try {
      await this.#passport.canActivate(context);
    } catch (error) {
      if (error instanceof OAuthError) throw new BearerChallengeError(error, required, presentedWith);
      throw error;
    } finally {
      delete request[PASSPORT_VIEW];
    }
    const auth = view[AUTH_INFO_PROPERTY];
    if (!auth) throw new Error('passport accepted the request without an AuthInfo');

    if (proof) {
      try {
        await checkTokenBinding(proof, credentials, auth, httpRequestView(request, this.#origin), {
          resource: this.config.resource,
          revision: this.config.revision.id,
        });
      } catch (error) {
        if (error instanceof OAuthError) throw new BearerChallengeError(error, required, presentedWith);
        throw error;
      }
    }

    if (missingScopes(auth.scopes, required, this.config.scopeHierarchy).length > 0) {
      throw new BearerChallengeError(
        new OAuthError('insufficient_scope', `This operation needs the scope ${formatScope(required)}.`),
        required,
        presentedWith,
      );
    }
    request[AUTH_INFO_PROPERTY] = auth;
    return true;
  }

  private async requiredScopes(
    context: ExecutionContext,
    request: BearerRequest,
  ): Promise<readonly string[]> {
    const targets = [context.getHandler(), context.getClass()];
    const declared = this.reflector.getAllAndOverride<readonly string[] | undefined>(
      REQUIRED_SCOPES_METADATA,
      targets,
    );
    const resolverType = this.reflector.getAllAndOverride<RequiredScopesResolverType | undefined>(
      SCOPE_RESOLVER_METADATA,
      targets,
    );
    const resolved = resolverType ? await (await this.resolver(resolverType)).requiredScopes(request) : [];
    const scopes = [...new Set([...(declared ?? []), ...resolved])];
    const invalid = scopes.find((scope) => !isScopeToken(scope));
    if (invalid !== undefined) throw new TypeError(`scope resolver returned "${invalid}", not a scope-token`);
    return scopes;
  }

  private async resolver(type: RequiredScopesResolverType): Promise<RequiredScopesResolver<unknown>> {
    let resolver = this.#resolvers.get(type);
    if (!resolver) {
      try {
        resolver = this.moduleRef.get(type, { strict: false }) as RequiredScopesResolver<unknown>;
      } catch {
        resolver = (await this.moduleRef.create(type)) as RequiredScopesResolver<unknown>;
      }
      this.#resolvers.set(type, resolver);
    }
    return resolver;
  }
}
