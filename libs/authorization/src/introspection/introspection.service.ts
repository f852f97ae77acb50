import { Inject, Injectable, Optional } from '@nestjs/common';
import type { JsonValue } from '@portcullis/extensions';
import { formatScope } from '@portcullis/protocol';
import type { OAuthClient } from '../clients/client.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { SecurityEvents } from '../events/security-events.js';
import { ResourceRegistry } from '../resources/resource-registry.js';
import { IssuedTokens } from './issued-tokens.service.js';

/**
 * An RFC 7662 2.2 introspection response.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7662#section-2.2
 */
export type IntrospectionResponse = { active: false } | ({ active: true } & Record<string, JsonValue>);

const INACTIVE: IntrospectionResponse = Object.freeze({ active: false as const });

/**
 * Answers what a token is (RFC 7662 2.2). Introspection is for resource servers: an access token is described only
 * to a client the operator made the resource server of the token's audience (`resourceServer`), so no client,
 * however it registered, reads another user's tokens (RFC 7662 4: the server decides who may learn what). Active
 * access tokens carry `scope` (the token's own, as its `scope` claim has it), `client_id`, `sub`, `aud`, `exp`, `iat`, `iss`, `jti` and `token_type: Bearer`; a
 * sender-constrained one carries its `cnf` instead, with the `token_type` of the composed proof-of-possession scheme
 * (RFC 9449 6.2: `DPoP`, or none when no such extension is composed any more: it MUST NOT say another). A
 * refresh token is described only to the client it was issued to (it already holds it),
 * with `token_type: refresh_token` so that no resource server can mistake it for a bearer access token (RFC 7662
 * 4: the server may answer differently depending on who asks); any other caller sees it inactive. Everything
 * inactive is `{"active": false}` and nothing else, so the answer tells nothing about why.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7662#section-2.2
 * @see https://www.rfc-editor.org/rfc/rfc7662#section-4
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-6.2
 */
@Injectable()
export class IntrospectionService {
  constructor(
    private readonly tokens: IssuedTokens,
    private readonly resources: ResourceRegistry,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
    @Optional() private readonly events?: SecurityEvents,
  ) {}

  async introspect(
    token: string,
    hint: string | undefined,
    caller: OAuthClient,
  ): Promise<IntrospectionResponse> {
    const found = await this.tokens.find(token, hint);
    if (!found || !(await this.tokens.isActive(found))) return INACTIVE;
    if (found.kind === 'access_token') {
      const { payload, record } = found;
      if (caller.resourceServer === undefined || caller.resourceServer !== record.audience) {
        await this.events?.record('introspection.refused', {
          clientId: caller.clientId,
          detail: { reason: 'not the resource server of the token audience', audience: record.audience },
        });
        return INACTIVE;
      }
      const confirmation = confirmationOf(payload.cnf);
      const scheme = this.options.extensions.authorizationServerProofOfPossession()?.scheme;
      return {
        active: true,
        // The token's own scope: the claim scopes granted with it (profile, email) are the ID token's, not the resource's.
        scope: formatScope(this.resources.accessTokenScopes(record.scopes)),
        client_id: record.clientId,
        sub: payload.sub,
        aud: payload.aud ?? record.audience,
        exp: payload.exp,
        iat: payload.iat,
        iss: this.options.issuer,
        ...(confirmation === undefined
          ? { token_type: 'Bearer' }
          : { cnf: confirmation, ...(scheme ? { token_type: scheme } : {}) }),
        jti: payload.jti,
      };
    }
    const { record, grant } = found;
    if (grant.clientId !== caller.clientId) {
      await this.events?.record('introspection.refused', {
        clientId: caller.clientId,
        detail: { reason: 'a refresh token of another client' },
      });
      return INACTIVE;
    }
    return {
      active: true,
      scope: formatScope(record.scopes),
      client_id: grant.clientId,
      sub: grant.userId,
      aud: grant.resource,
      exp: Math.floor(record.expiresAt.getTime() / 1000),
      iat: Math.floor(record.createdAt.getTime() / 1000),
      iss: this.options.issuer,
      token_type: 'refresh_token',
    };
  }
}

/** The `cnf` claim of a verified access token this server signed: a JSON object, or absent for a Bearer token. */
function confirmationOf(cnf: unknown): Record<string, JsonValue> | undefined {
  if (cnf === undefined) return undefined;
  if (cnf === null || typeof cnf !== 'object' || Array.isArray(cnf)) {
    throw new Error('an access token this server signed has a cnf that is not an object');
  }
  return cnf as Record<string, JsonValue>;
}
