// The README's worked example, run. `OAuthError` stands in for the one of @portcullis/protocol, which this lib
// does not depend on.
import { describe, expect, it } from '@jest/globals';
import { defineExtension, ExtensionRegistry, type IssueTokensRequest } from '../src/index.js';

class OAuthError extends Error {
  constructor(
    readonly code: string,
    readonly description?: string,
  ) {
    super(description ?? code);
  }
}

/** A single-use ticket store, as the extension would keep one. */
function ticketStore() {
  const open = new Map([['t-1', { clientId: 'client-1', subject: 'user-1', scope: ['mcp:read'] }]]);
  return {
    redeem(ticket: string | undefined, clientId: string) {
      const found = ticket === undefined ? undefined : open.get(ticket);
      if (!found || found.clientId !== clientId) return undefined;
      open.delete(ticket as string);
      return found;
    },
  };
}

const TICKET_GRANT = 'urn:example:params:oauth:grant-type:ticket';
const tickets = ticketStore();

const ticketGrant = defineExtension({
  id: 'com.example/ticket-grant',
  version: '1.0.0',
  authorizationServer: {
    metadata: ({ issuer }) => ({ ticket_issuance_endpoint: `${issuer}/tickets` }),
    grantTypes: {
      [TICKET_GRANT]: async (request, context) => {
        const ticket = tickets.redeem(request.params['ticket'], request.client.clientId);
        if (!ticket) throw new OAuthError('invalid_grant', 'The ticket is unknown, used or expired.');
        return context.issueTokens({
          subject: ticket.subject,
          scope: ticket.scope,
          resources: request.resources,
        });
      },
    },
  },
});

describe('the README worked example', () => {
  const issuer = 'https://as.example.com';
  const revision = '2026-07-28';
  const registry = ExtensionRegistry.compose([ticketGrant]);
  const issued: IssueTokensRequest[] = [];
  const issueTokens = async (request: IssueTokensRequest) => {
    issued.push(request);
    return { access_token: 'at-1', token_type: 'Bearer', expires_in: 300 };
  };
  const client = { clientId: 'client-1', metadata: {}, authenticationMethod: 'client_secret_basic' };
  const redeem = (ticket: string) =>
    registry.grantHandler(TICKET_GRANT)?.(
      { grantType: TICKET_GRANT, params: { ticket }, resources: ['https://mcp.example.com'], client },
      {
        issuer,
        revision,
        issueTokens,
        useOnce: async () => true,
        signJwt: async () => {
          throw new Error('the example host signs nothing');
        },
        verifyIdToken: async () => undefined,
      },
    );

  it('puts the extension field and grant type into the host metadata document beside the host fields', () => {
    const metadata = {
      ...registry.authorizationServerMetadata({ issuer, revision }),
      issuer,
      token_endpoint: `${issuer}/token`,
      grant_types_supported: ['authorization_code', 'refresh_token', ...registry.grantTypes()],
    };
    expect(metadata).toEqual({
      ticket_issuance_endpoint: 'https://as.example.com/tickets',
      issuer,
      token_endpoint: 'https://as.example.com/token',
      grant_types_supported: ['authorization_code', 'refresh_token', TICKET_GRANT],
    });
  });

  it('redeems a ticket once through the host issueTokens, then refuses it with invalid_grant', async () => {
    await expect(redeem('t-1')).resolves.toEqual({
      access_token: 'at-1',
      token_type: 'Bearer',
      expires_in: 300,
    });
    expect(issued).toEqual([
      { subject: 'user-1', scope: ['mcp:read'], resources: ['https://mcp.example.com'] },
    ]);
    await expect(redeem('t-1')).rejects.toMatchObject({ code: 'invalid_grant' });
    expect(issued).toHaveLength(1);
  });
});
