import type { AuthorizationServerFixture } from '../support/authorization-server.fixture.js';

export interface RegistrationResult {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** POSTs client metadata (an object, serialised, or a raw string) to `/register` as JSON. */
export async function register(
  as: AuthorizationServerFixture,
  metadata: unknown,
  headers: Record<string, string> = {},
): Promise<RegistrationResult> {
  const response = await fetch(`${as.app.url}/register`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof metadata === 'string' ? metadata : JSON.stringify(metadata),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

/** A valid registration of a native public client (what an MCP client on the user's machine sends). */
export function nativeClient(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_name: 'Notes CLI',
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
    ...extra,
  };
}
