/**
 * The client half of `io.modelcontextprotocol/enterprise-managed-authorization` (MCP SEP-990): the user's ID token
 * from the enterprise IdP is exchanged there for an Identity Assertion JWT Authorization Grant (ID-JAG), which the
 * MCP authorization server redeems for an access token.
 *
 * Rules kept here:
 * - SEP-990 section 5 and RFC 7523 2.1: the ID-JAG is the `assertion` of a `jwt-bearer` token request; the SDK's
 *   `requestToken` adds `resource` (RFC 8707 2) and the client's authentication at the MCP authorization server.
 * - SEP-990 section 6.2.1 and RFC 8693 2.2.1: the scope redeemed is what the IdP granted within what was chosen.
 *
 * The options and their checks are in `id-jag-strategy.options.ts`, the exchange at the IdP (RFC 8693) in
 * `token-exchange.ts`, its errors in `id-jag.error.ts`.
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-2.1
 */
import type { ClientGrantContext, ClientGrantStrategy, TokenResponse } from '@portcullis/extensions';
import { JWT_BEARER_GRANT } from '../constants.js';
import { IdJagError } from './id-jag.error.js';
import { checkOptions, type IdJagStrategyOptions } from './id-jag-strategy.options.js';
import { exchangeIdToken } from './token-exchange.js';

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
 * scope the SDK chose (never more than either); with neither, the chosen scope. An IdP that granted none of a
 * non-empty chosen scope is a failure here, not a token with a scope nobody asked for.
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
