import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

export interface FormResult {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

/** `Authorization: Basic` for a confidential client (RFC 6749 2.3.1). */
export function basic(client: TestClient): Record<string, string> {
  const id = encodeURIComponent(client.clientId);
  const secret = encodeURIComponent(client.clientSecret ?? '');
  return { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` };
}

/** POSTs a form to an endpoint of the authorization server (`introspect`, `revoke`). */
export async function postForm(
  as: AuthorizationServerFixture,
  endpoint: string,
  params: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<FormResult> {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) form.append(name, value);
  const response = await fetch(`${as.app.url}/${endpoint}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: form.toString(),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  id_token?: string;
  scope: string;
}

/**
 * Runs the whole authorization code flow for `client` and `user` on the real pages and redeems the code, with
 * the client's secret (`client_secret_post`) when it has one.
 */
export async function issueTokens(
  as: AuthorizationServerFixture,
  client: TestClient,
  user: { username: string; password: string },
  scope = 'notes:read notes:write',
): Promise<IssuedTokens> {
  const request = authorizationRequest(as, client, { scope });
  const callback = await authorize(new HeadlessUserAgent(), request, user, client);
  const response = await redeem(
    as,
    client,
    callback,
    request,
    client.clientSecret ? { client_secret: client.clientSecret } : {},
  );
  if (response.status !== 200) throw new Error(`token request failed: ${JSON.stringify(response.body)}`);
  return response.body as unknown as IssuedTokens;
}
