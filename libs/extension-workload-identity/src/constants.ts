/**
 * The extension's identifier. MCP SEP-1933 names it `io.modelcontextprotocol/auth/wif`; an extension id here is
 * `{vendor-prefix}/{extension-name}` with one slash, so the path is folded into the name.
 *
 * @see https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1933
 */
export const WORKLOAD_IDENTITY_ID = 'io.modelcontextprotocol/wif';

/** The grant a workload presents its JWT with (RFC 7523 2.1). */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** The name of the client grant strategy, for `ExtensionRegistry.clientGrantStrategies()`. */
export const WORKLOAD_IDENTITY_STRATEGY = 'workload-identity';

/**
 * The JOSE `typ` of an Identity Assertion JWT Authorization Grant (MCP SEP-990): such an assertion is never a
 * workload's, and is left to the extension that redeems it.
 */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';
