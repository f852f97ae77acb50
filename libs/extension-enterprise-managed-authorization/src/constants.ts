/**
 * The extension's identifier, as MCP SEP-990 names it.
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx
 */
export const ENTERPRISE_MANAGED_AUTHORIZATION_ID = 'io.modelcontextprotocol/enterprise-managed-authorization';

/** The grant the MCP client redeems an ID-JAG with at the MCP authorization server (RFC 7523 2.1). */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** The grant the MCP client obtains an ID-JAG with at the enterprise IdP (RFC 8693 2.1). */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** `requested_token_type` and `issued_token_type` of an Identity Assertion JWT Authorization Grant. */
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';

/** `subject_token_type` of the user's OpenID Connect ID token (RFC 8693 3). */
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';

/** The JOSE `typ` of an ID-JAG. */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';

/** The name of the client grant strategy, for `ExtensionRegistry.clientGrantStrategies()`. */
export const ID_JAG_STRATEGY = 'enterprise-managed-authorization';

/**
 * The authorization grant profile a resource authorization server lists in `authorization_grant_profiles_supported`
 * when it redeems ID-JAGs (SEP-990 section 6: what clients look for before they try the flow).
 */
export const ID_JAG_GRANT_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';
