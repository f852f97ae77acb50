/**
 * A client as the authorization server knows it, whichever way it got its client ID (pre-registration, dynamic
 * registration, or a client ID metadata document).
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
/**
 * How a client got its client ID: registered by the operator (`portcullis-admin`), by itself through dynamic
 * registration (RFC 7591), or named by the URL of its client ID metadata document.
 */
export type ClientOrigin = 'preregistered' | 'dynamic' | 'metadata-document';

export interface OAuthClient {
  readonly clientId: string;
  readonly origin: ClientOrigin;
  /** When a stored client was registered; absent for a metadata-document client. */
  readonly createdAt?: Date;
  readonly clientName?: string;
  readonly redirectUris: readonly string[];
  readonly grantTypes: readonly string[];
  readonly responseTypes: readonly string[];
  /** `none` for a public client; `client_secret_basic`, `client_secret_post` or `private_key_jwt` otherwise. */
  readonly tokenEndpointAuthMethod: string;
  readonly applicationType: string;
  /** Stored hash of the secret, for the shared-secret methods. */
  readonly secretHash?: string;
  readonly secretExpiresAt?: Date;
  /** Every registered metadata value, as registered (RFC 7591 names). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /**
   * The canonical URI of the resource this client is the resource server of, as the operator set it
   * (`portcullis-admin clients create --resource-server`): only such a client gets introspection answers, and only
   * for tokens whose audience it is. Never set by registration or a metadata document.
   */
  readonly resourceServer?: string;
}

/**
 * Where `/authorize` and `/token` look clients up. The database holds pre-registered and dynamically registered
 * clients; other sources (client ID metadata documents) plug in beside it.
 */
export interface ClientSource {
  /** The client, or undefined when this source does not know it. */
  find(clientId: string): Promise<OAuthClient | undefined>;
}

/** Injection token of the {@link ClientSource} the endpoints use. */
export const CLIENT_SOURCE = 'portcullis:client-source';
