// Rule: a grant type has one handler, or several only when every registration of it shares it (`accepts`), and
// never one the host keeps (RFC 6749 4.1 and 6: `authorization_code`, `refresh_token`; RFC 9700 2.4: `password`).
// A shared grant type goes to the first registration, in registry order, that accepts the request.

import { RESERVED_GRANT_TYPES } from '../checks/grant-type.check.js';
import type {
  ClientEstablishingGrantHandler,
  GrantHandler,
  GrantRegistration,
  GrantSelectionRequest,
} from '../contracts/authorization-server.hooks.js';
import { ExtensionRegistryError } from './extension-registry.error.js';

interface RegisteredGrantBase {
  readonly extensionId: string;
  readonly grantType: string;
  /** Whether the registration has `accepts`, so that other extensions may register the grant type too. */
  readonly shared: boolean;
  /** The registration's `accepts`; one that takes every request when it has none. */
  readonly accepts: (request: GrantSelectionRequest) => boolean;
}

/**
 * One extension's registration of a grant type, as the host dispatches to it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export type RegisteredGrant = RegisteredGrantBase &
  (
    | { readonly establishesClient: false; readonly handle: GrantHandler }
    | { readonly establishesClient: true; readonly handle: ClientEstablishingGrantHandler }
  );

/**
 * An extension's `grantTypes` entry as the registry keeps it: a bare handler takes every request of its grant type
 * and is not shared.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export function registeredGrant(
  extensionId: string,
  grantType: string,
  contribution: GrantHandler | GrantRegistration,
): RegisteredGrant {
  if (typeof contribution === 'function') {
    return Object.freeze({
      extensionId,
      grantType,
      shared: false,
      accepts: () => true,
      establishesClient: false,
      handle: contribution,
    });
  }
  const { accepts } = contribution;
  const base = {
    extensionId,
    grantType,
    shared: accepts !== undefined,
    accepts:
      accepts === undefined ? () => true : (request: GrantSelectionRequest) => accepts(request) === true,
  };
  return Object.freeze(
    contribution.establishesClient === true
      ? { ...base, establishesClient: true, handle: contribution.handle }
      : { ...base, establishesClient: false, handle: contribution.handle },
  );
}

/**
 * Adds a grant type registration: a grant type the host keeps is refused, and so is a second registration of one
 * grant type unless every registration of it is shared (has `accepts`).
 *
 * @throws ExtensionRegistryError `grant_type_conflict`.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export function claimGrantType(grants: Map<string, RegisteredGrant[]>, registration: RegisteredGrant): void {
  const { extensionId, grantType } = registration;
  if (RESERVED_GRANT_TYPES.has(grantType)) {
    throw new ExtensionRegistryError(
      'grant_type_conflict',
      `Extension ${extensionId} claims the grant type ${grantType}, which extensions may not handle.`,
      [extensionId],
      grantType,
    );
  }
  const registrations = grants.get(grantType);
  if (registrations === undefined) {
    grants.set(grantType, [registration]);
    return;
  }
  const unshared = [...registrations, registration].find((each) => !each.shared);
  if (unshared !== undefined) {
    const owner = (registrations[0] as RegisteredGrant).extensionId;
    throw new ExtensionRegistryError(
      'grant_type_conflict',
      `Extensions ${owner} and ${extensionId} both claim the grant type ${grantType}, and ${unshared.extensionId} does not share it (a grant type is shared only when every registration of it has accepts).`,
      [owner, extensionId],
      grantType,
    );
  }
  registrations.push(registration);
}
