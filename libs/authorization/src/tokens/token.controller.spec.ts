import { describe, expect, it } from '@jest/globals';
import {
  defineExtension,
  ExtensionRegistry,
  type GrantRequest,
  type TokenResponse,
} from '@portcullis/extensions';
import { OAuthError } from '@portcullis/protocol';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedOAuthClient, ClientAuthenticator } from '../clients/client-authentication.js';
import { InvalidClientError } from '../clients/client-authentication.js';
import type { UsedJwtIds } from '../clients/client-assertions/used-jwt-id.repository.js';
import type { OAuthClient } from '../clients/client.js';
import type { AuthorizationServerOptions } from '../config/authorization-server.options.js';
import type { MetadataService } from '../discovery/metadata.service.js';
import { extensionGrants } from '../grants/extension.grant.js';
import type { ExtensionJwts } from '../grants/extension-jwts.service.js';
import type { TokenGrant } from '../grants/token-grant.js';
import { RequestParameters } from '../http/request-parameters.js';
import { ResourceRegistry } from '../resources/resource-registry.js';
import type { TokenIssuer } from './token-issuer.service.js';
import { TokenController } from './token.controller.js';
import { TokenRequestProofs } from './token-request-proof.service.js';

const RESOURCE = 'https://mcp.example/mcp';
const TICKET_GRANT = 'urn:example:params:oauth:grant-type:ticket';

function client(grantTypes: string[]): OAuthClient {
  const registered = {
    clientId: 'client-1',
    origin: 'preregistered' as const,
    redirectUris: [],
    grantTypes,
    responseTypes: [],
    tokenEndpointAuthMethod: 'client_secret_post',
    applicationType: 'web',
    metadata: { client_name: 'One' },
  };
  return registered;
}

/** A token endpoint with the given client authentication outcome, a built-in `refresh_token` and a ticket extension. */
function endpoint(authenticate: () => Promise<AuthenticatedOAuthClient>) {
  const seen: GrantRequest[] = [];
  const issued: unknown[] = [];
  const extensions = new ExtensionRegistry([
    defineExtension({
      id: 'org.example/ticket-grant',
      version: '1.0.0',
      authorizationServer: {
        grantTypes: {
          [TICKET_GRANT]: async (request, context) => {
            seen.push(request);
            return context.issueTokens({
              subject: 'ticket-holder',
              scope: ['mcp:read'],
              resources: request.resources,
            });
          },
        },
      },
    }),
  ]);
  const options = {
    issuer: 'https://as.example',
    revision: '2025-06-18',
    extensions,
  } as unknown as AuthorizationServerOptions;
  const tokens = {
    issue: async (request: unknown) => {
      issued.push(request);
      return { access_token: 'at', token_type: 'Bearer' } satisfies TokenResponse;
    },
  } as unknown as TokenIssuer;
  const resources = new ResourceRegistry([{ uri: RESOURCE, scopesSupported: ['mcp:read'] }]);
  const builtIn: TokenGrant = {
    grantType: 'refresh_token',
    handle: async () => ({ access_token: 'built-in', token_type: 'Bearer' }),
  };
  // No proof-of-possession extension is composed: the proof check returns before it needs its store.
  const proofs = new TokenRequestProofs({} as UsedJwtIds, {} as MetadataService, options);
  const controller = new TokenController({ authenticate } as unknown as ClientAuthenticator, proofs, [
    builtIn,
    ...extensionGrants(
      options,
      tokens,
      resources,
      { use: async () => true } as unknown as UsedJwtIds,
      {} as ExtensionJwts,
      { find: async () => undefined },
    ),
  ]);
  const request = { headers: {} } as FastifyRequest;
  const post = (form: string) => controller.token(RequestParameters.fromForm(form), request);
  return { post, seen, issued };
}

const authenticated = (grantTypes: string[]) => async () => ({
  client: client(grantTypes),
  method: 'client_secret_post',
});

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof OAuthError)) throw new Error(`expected an OAuthError, got ${String(error)}`);
  return error.code;
}

describe('the token endpoint dispatch', () => {
  it('authenticates the client before it looks at the grant type', async () => {
    const { post } = endpoint(async () => {
      throw new InvalidClientError('unknown client');
    });
    expect(await refusal(post('grant_type=urn:example:unknown&client_id=x'))).toBe('invalid_client');
  });

  it('answers unsupported_grant_type for a grant type nobody handles, before the client registration', async () => {
    const { post } = endpoint(authenticated([]));
    expect(await refusal(post('grant_type=urn:example:unknown'))).toBe('unsupported_grant_type');
  });

  it('answers unauthorized_client when the client is not registered for the grant type, built-in or extension', async () => {
    const { post, seen } = endpoint(authenticated([]));
    expect(await refusal(post(`grant_type=${encodeURIComponent(TICKET_GRANT)}&ticket=t`))).toBe(
      'unauthorized_client',
    );
    expect(await refusal(post('grant_type=refresh_token&refresh_token=r'))).toBe('unauthorized_client');
    expect(seen).toEqual([]);
  });

  it('dispatches a built-in grant type to its grant', async () => {
    const { post } = endpoint(authenticated(['refresh_token']));
    expect(await post('grant_type=refresh_token&refresh_token=r')).toEqual({
      access_token: 'built-in',
      token_type: 'Bearer',
    });
  });

  it('gives an extension handler neither the client credentials nor grant_type, and mints through the host', async () => {
    const { post, seen, issued } = endpoint(authenticated([TICKET_GRANT]));
    const form = new URLSearchParams({
      grant_type: TICKET_GRANT,
      ticket: 't',
      client_id: 'client-1',
      client_secret: 's',
      client_assertion: 'a',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      resource: RESOURCE,
    });
    expect(await post(form.toString())).toEqual({ access_token: 'at', token_type: 'Bearer' });
    expect(seen).toHaveLength(1);
    expect({ ...seen[0]?.params }).toEqual({ ticket: 't', client_id: 'client-1' });
    expect(seen[0]?.grantType).toBe(TICKET_GRANT);
    expect(seen[0]?.resources).toEqual([RESOURCE]);
    expect(seen[0]?.client).toEqual({
      clientId: 'client-1',
      metadata: { client_name: 'One' },
      authenticationMethod: 'client_secret_post',
    });
    expect(issued).toEqual([
      {
        grantType: TICKET_GRANT,
        client: { clientId: 'client-1', metadata: { client_name: 'One' } },
        subject: 'ticket-holder',
        resource: RESOURCE,
        scopes: ['mcp:read'],
      },
    ]);
  });
});
