import { defineExtension, type Extension } from '@portcullis/extensions';
import {
  checkedAlgorithms,
  dpopAuthorizationServer,
  type DpopAuthorizationServerOptions,
} from './authorization-server/dpop.authorization-server.js';
import { dpopClient, type DpopClientOptions } from './client/dpop.client.js';
import { DPOP_EXTENSION_ID } from './constants.js';
import {
  dpopResourceServer,
  type DpopResourceServerOptions,
} from './resource-server/dpop.resource-server.js';

/** What each side of the extension is configured with; every side is on unless set to `false`. */
export interface DpopOptions {
  readonly authorizationServer?: DpopAuthorizationServerOptions | false;
  readonly resourceServer?: DpopResourceServerOptions | false;
  readonly client?: DpopClientOptions | false;
}

/**
 * `io.modelcontextprotocol/dpop` (MCP SEP-1932): DPoP sender-constrained access tokens (RFC 9449).
 * - On an authorization server: `dpop_signing_alg_values_supported`, proofs checked at the token endpoint, tokens
 *   bound to the proof's key (`cnf.jkt`, `token_type` `DPoP`), `dpop_jkt` at the authorization endpoint.
 * - On a resource server: `Authorization: DPoP` with a proof per request, bound tokens refused as Bearer, the
 *   `DPoP` challenge beside `Bearer`, `dpop_signing_alg_values_supported` in its metadata (RFC 9728 section 2;
 *   the host writes it from the hook's `algorithms`).
 * - On a client: a key per authorization and a proof per request, for a resource that accepts DPoP (RFC 9728
 *   section 2 metadata, or a `DPoP` challenge) whenever the authorization server offers it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449
 * @see https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1932
 */
export function dpopExtension(options: DpopOptions = {}): Extension {
  const as = options.authorizationServer === false ? undefined : (options.authorizationServer ?? {});
  const rs = options.resourceServer === false ? undefined : (options.resourceServer ?? {});
  const client = options.client === false ? undefined : (options.client ?? {});
  return defineExtension({
    id: DPOP_EXTENSION_ID,
    version: '0.1.0',
    ...(as
      ? {
          authorizationServer: {
            metadata: { dpop_signing_alg_values_supported: [...checkedAlgorithms(as.algorithms)] },
            proofOfPossession: dpopAuthorizationServer(as),
          },
        }
      : {}),
    ...(rs
      ? {
          resourceServer: {
            proofOfPossession: dpopResourceServer(rs),
          },
        }
      : {}),
    ...(client ? { client: { proofOfPossession: dpopClient(client) } } : {}),
  });
}
