import { clientCredentialsExtension } from '@portcullis/extension-client-credentials';
import { dpopExtension, dpopNonces, memoryReplayStore, type ReplayStore } from '@portcullis/extension-dpop';
import { enterpriseManagedAuthorization } from '@portcullis/extension-enterprise-managed-authorization';
import type { ExtensionCatalogue } from '@portcullis/platform';

/** The settings of the extensions below, from the configuration (see the README's configuration table). */
export interface ExtensionSettings {
  readonly DPOP_REQUIRED: boolean;
  readonly DPOP_NONCE: boolean;
  readonly DPOP_NONCE_SECRET?: Uint8Array | undefined;
  readonly DPOP_PROOF_MAX_AGE: number;
  /** The replay store every instance shares (`REDIS_URL`); this process's memory without one. */
  readonly DPOP_REPLAY_STORE?: ReplayStore | undefined;
}

/**
 * The extensions built into this server, by the name `EXTENSIONS` uses (comma-separated; see the README's
 * configuration table), the same names as the authorization server's; a team's own package needs no line here:
 * `EXTENSIONS` names it, installed in `EXTENSIONS_DIR`. Client credentials and enterprise-managed
 * authorization have no resource-server half: the server composes them to declare them in its MCP capabilities
 * (MCP SEP-2133 "Negotiation").
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 * @see https://modelcontextprotocol.io/seps/2133-extensions
 */
export const AVAILABLE_EXTENSIONS: ExtensionCatalogue<ExtensionSettings> = {
  // io.modelcontextprotocol/oauth-client-credentials (MCP SEP-1046)
  'client-credentials': clientCredentialsExtension,
  // io.modelcontextprotocol/enterprise-managed-authorization (MCP SEP-990): no identity providers here, the
  // authorization server redeems the ID-JAGs
  'enterprise-managed-authorization': enterpriseManagedAuthorization(),
  // io.modelcontextprotocol/dpop (MCP SEP-1932, RFC 9449): DPoP-bound tokens with a proof per request
  dpop: (settings) =>
    dpopExtension({
      authorizationServer: false,
      client: false,
      resourceServer: {
        required: settings.DPOP_REQUIRED,
        maxAgeSeconds: settings.DPOP_PROOF_MAX_AGE,
        replayStore: settings.DPOP_REPLAY_STORE ?? memoryReplayStore(),
        ...(settings.DPOP_NONCE
          ? {
              nonces: dpopNonces(settings.DPOP_NONCE_SECRET ? { secret: settings.DPOP_NONCE_SECRET } : {}),
            }
          : {}),
      },
    }),
};
