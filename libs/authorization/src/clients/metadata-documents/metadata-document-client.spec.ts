import { describe, expect, it } from '@jest/globals';
import { clientFromMetadataDocument } from './metadata-document-client.js';
import { MetadataDocumentRefusal } from './metadata-document-refusal.js';

const URL_ID = 'https://app.example.com/oauth/client.json';

function document(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_id: URL_ID,
    client_name: 'Example',
    redirect_uris: ['http://127.0.0.1/callback'],
    ...overrides,
  };
}

function refusal(run: () => unknown): MetadataDocumentRefusal {
  try {
    run();
  } catch (error) {
    if (error instanceof MetadataDocumentRefusal) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('clientFromMetadataDocument', () => {
  it('makes a public client with the authorization code grant and the code response type by default', () => {
    expect(clientFromMetadataDocument(document(), URL_ID)).toEqual({
      clientId: URL_ID,
      origin: 'metadata-document',
      clientName: 'Example',
      redirectUris: ['http://127.0.0.1/callback'],
      grantTypes: ['authorization_code'],
      responseTypes: ['code'],
      tokenEndpointAuthMethod: 'none',
      applicationType: 'native',
      metadata: document(),
    });
  });

  it('keeps refresh_token but drops grants that rest on client authentication for a public client', () => {
    const client = clientFromMetadataDocument(
      document({ grant_types: ['authorization_code', 'refresh_token', 'client_credentials'] }),
      URL_ID,
    );
    expect(client.grantTypes).toEqual(['authorization_code', 'refresh_token']);
  });

  it('takes a private-use redirect URI only of a scheme the operator allows, as a native client', () => {
    const cursor = document({ redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'] });
    expect(refusal(() => clientFromMetadataDocument(cursor, URL_ID)).message).toContain(
      'redirect_uri_insecure',
    );
    expect(clientFromMetadataDocument(cursor, URL_ID, { privateUseSchemes: ['cursor'] })).toMatchObject({
      redirectUris: ['cursor://anysphere.cursor-mcp/oauth/callback'],
      applicationType: 'native',
    });
  });

  it('derives native for a document that mixes https and loopback redirect URIs (VS Code)', () => {
    const vscode = document({ redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'] });
    expect(clientFromMetadataDocument(vscode, URL_ID).applicationType).toBe('native');
  });

  it('keeps dpop_bound_access_tokens in the metadata the token endpoint reads (RFC 9449 5.2)', () => {
    const client = clientFromMetadataDocument(document({ dpop_bound_access_tokens: true }), URL_ID);
    expect(client.metadata['dpop_bound_access_tokens']).toBe(true);
  });

  it('refuses a document whose dpop_bound_access_tokens is not a boolean', () => {
    expect(
      refusal(() => clientFromMetadataDocument(document({ dpop_bound_access_tokens: 'true' }), URL_ID))
        .reason,
    ).toBe('invalid_document');
  });

  it('makes a confidential client of private_key_jwt with jwks_uri', () => {
    const client = clientFromMetadataDocument(
      document({
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: 'https://app.example.com/jwks.json',
        redirect_uris: ['https://app.example.com/cb'],
        grant_types: ['authorization_code', 'client_credentials'],
      }),
      URL_ID,
    );
    expect(client).toMatchObject({
      tokenEndpointAuthMethod: 'private_key_jwt',
      applicationType: 'web',
      grantTypes: ['authorization_code', 'client_credentials'],
    });
  });

  it("drops the extension grants only the operator's clients may use, and keeps the self-registrable ones", () => {
    const client = clientFromMetadataDocument(
      document({
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: 'https://app.example.com/jwks.json',
        redirect_uris: ['https://app.example.com/cb'],
        grant_types: [
          'authorization_code',
          'client_credentials',
          'urn:ietf:params:oauth:grant-type:jwt-bearer',
        ],
      }),
      URL_ID,
      { operatorGrants: ['client_credentials'] },
    );
    expect(client.grantTypes).toEqual(['authorization_code', 'urn:ietf:params:oauth:grant-type:jwt-bearer']);
  });

  it.each([
    ['default port written out', 'https://app.example.com:443/oauth/client.json'],
    ['a trailing slash', 'https://app.example.com/oauth/client.json/'],
    ['another case', 'https://App.example.com/oauth/client.json'],
    ['percent-encoding', 'https://app.example.com/oauth/%63lient.json'],
  ])('refuses a client_id that differs by %s', (_name, claimed) => {
    const error = refusal(() => clientFromMetadataDocument(document({ client_id: claimed }), URL_ID));
    expect(error.reason).toBe('invalid_document');
    expect(error.message).toContain('client_id_mismatch');
  });

  it.each([
    [
      'client_secret_basic',
      { token_endpoint_auth_method: 'client_secret_basic' },
      'shared_secret_auth_method',
    ],
    ['client_secret_post', { token_endpoint_auth_method: 'client_secret_post' }, 'shared_secret_auth_method'],
    ['a client_secret', { client_secret: 's3cr3t' }, 'client_secret_forbidden'],
    [
      'a private key in jwks',
      {
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' }] },
      },
      'jwks_private_key',
    ],
    ['no redirect URIs', { redirect_uris: [] }, 'redirect_uris_missing'],
    ['no client_name', { client_name: undefined }, 'client_name_missing'],
  ])('refuses %s', (_name, overrides, rule) => {
    expect(refusal(() => clientFromMetadataDocument(document(overrides), URL_ID)).message).toContain(rule);
  });

  it('refuses an authentication method this server cannot verify', () => {
    const error = refusal(() =>
      clientFromMetadataDocument(document({ token_endpoint_auth_method: 'tls_client_auth' }), URL_ID),
    );
    expect(error.message).toBe('token_endpoint_auth_method tls_client_auth is not supported');
  });

  it('holds an http loopback document (development) to the same rules and to its own URL byte for byte', () => {
    const httpId = 'http://localhost:8080/client.json';
    expect(clientFromMetadataDocument(document({ client_id: httpId }), httpId).clientId).toBe(httpId);
    expect(
      refusal(() =>
        clientFromMetadataDocument(document({ client_id: 'https://localhost:8080/client.json' }), httpId),
      ).message,
    ).toContain('client_id_mismatch');
    expect(
      refusal(() =>
        clientFromMetadataDocument(
          document({ client_id: httpId, token_endpoint_auth_method: 'client_secret_basic' }),
          httpId,
        ),
      ).message,
    ).toContain('shared_secret_auth_method');
  });
});
