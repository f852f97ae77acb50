// Access tokens from the built authorization server the simplest honest way: a confidential client registered with
// `portcullis-admin clients create --grant client_credentials` (MCP SEP-1046), then the token request of RFC 6749
// Section 4.4.2 at the token endpoint its RFC 8414 metadata names, with RFC 8707 `resource`.
import { expect } from '@jest/globals';
import type { BuiltStack } from '@portcullis/testing';

/** A client as `clients create --json` prints it. */
export interface MachineClient {
  readonly client_id: string;
  readonly client_secret: string;
}

/** Registers a confidential client for the client credentials grant (run in `startBuiltStack`'s `before`). */
export async function createMachineClient(admin: BuiltStack['admin'], name: string): Promise<MachineClient> {
  const created = await admin('clients', 'create', '--grant', 'client_credentials', '--name', name, '--json');
  expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  return JSON.parse(created.stdout) as MachineClient;
}

/** RFC 6749 Section 2.3.1: the client's id and secret, each form-urlencoded, as HTTP Basic credentials. */
function basicCredentials(client: MachineClient): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return Buffer.from(`${encode(client.client_id)}:${encode(client.client_secret)}`).toString('base64');
}

/**
 * An access token for `resource` with `scope`, issued to `client` by the client credentials grant.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.4.2
 * @see https://www.rfc-editor.org/rfc/rfc8707#section-2
 */
export async function clientCredentialsToken(
  issuer: string,
  client: MachineClient,
  request: { resource: string; scope: string },
): Promise<string> {
  const metadata = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as {
    token_endpoint: string;
  };
  const response = await fetch(metadata.token_endpoint, {
    method: 'POST',
    headers: {
      authorization: `Basic ${basicCredentials(client)}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...request }),
  });
  const body = (await response.json()) as { access_token?: string };
  expect({ status: response.status, body }).toMatchObject({ status: 200, body: { token_type: 'Bearer' } });
  return body.access_token!;
}
