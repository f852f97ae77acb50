/** Injection token of the validated {@link ResourceServerConfig}. */
export const RESOURCE_SERVER_CONFIG = 'portcullis:resource-server-config';

/** Injection token of the name this module's bearer strategy is registered under with passport. */
export const BEARER_STRATEGY_NAME = 'portcullis:bearer-strategy-name';

/** The request property the route authentication (or the guard) stores the {@link AuthInfo} under. */
export const AUTH_INFO_PROPERTY = 'portcullisAuth';

/** Route metadata keys of the scope decorators. */
export const REQUIRED_SCOPES_METADATA = 'portcullis:required-scopes';
export const SCOPE_RESOLVER_METADATA = 'portcullis:scope-resolver';
/** Set by every scope decorator on what it protects (a method or a controller): what the boot check looks for. */
export const PROTECTED_ROUTE_METADATA = 'portcullis:protected-route';

/**
 * The injection token of the host app's `prom-client` Registry, when it has one (the Portcullis apps provide it through
 * libs/platform under this name): the resource server counts what it refuses there.
 */
export const METRICS_REGISTRY = 'portcullis:metrics-registry';
