// Rules kept, from GitHub's documentation ("Authorizing OAuth apps", "Generating a user access token for a GitHub
// App", the REST API's "Users" and "Emails"): the token endpoint answers JSON only when asked with
// `Accept: application/json` (openid-client always asks) and reports an error with status 200 and an `error`
// member, which is a failed exchange here; its `scope` is comma-separated; PKCE S256 is accepted; the person is the
// numeric `id` of `GET /user`, never `login`, which its owner can change and GitHub can give to someone else; an
// address is the person's only from `GET /user/emails`, primary and verified (scope `user:email`). A GitHub App's
// user token expires (`expires_in`) and comes with a refresh token that rotates; both are kept as any upstream's.
import type * as oidc from 'openid-client';
import { UpstreamError } from '../upstream.error.js';
import { statedProfile } from '../upstream-profile.js';
import { asObject, getJson, identifierOf } from './provider-api.js';
import type { ProviderIdentity, UpstreamProvider, UpstreamTokenResponse } from './upstream-provider.js';

/** GitHub.com's OAuth endpoints' host and REST API. */
export const GITHUB_BASE_URL = 'https://github.com';
export const GITHUB_API_URL = 'https://api.github.com';

/** The REST API's base for `baseUrl`: GitHub.com's API, or Enterprise Server's `{base}/api/v3`. */
export function githubApiUrl(baseUrl: string): string {
  return baseUrl === GITHUB_BASE_URL ? GITHUB_API_URL : `${baseUrl}/api/v3`;
}

/** The REST API version these calls are written for, and its media type. */
const API_HEADERS = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };

/** An organization's or a team's name (slug) as GitHub allows them: letters, digits, `-`, `_`, `.`. */
const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** GitHub's token errors for a code or refresh token it no longer honours: RFC 6749 5.2 `invalid_grant`. */
const GRANT_ERRORS: readonly string[] = ['bad_verification_code', 'bad_refresh_token'];

/**
 * `UPSTREAM_PROVIDER=github`: an OAuth App or a GitHub App on GitHub.com or GitHub Enterprise Server. GitHub has
 * neither discovery nor OpenID Connect for these apps: the endpoints are its documented ones, the identity its REST
 * API's.
 *
 * @see https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps
 * @see https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/generating-a-user-access-token-for-a-github-app
 * @see https://docs.github.com/en/rest/users/users#get-the-authenticated-user
 * @see https://docs.github.com/en/rest/users/emails#list-email-addresses-for-the-authenticated-user
 */
export class GithubProvider implements UpstreamProvider {
  readonly name = 'github';
  readonly openIdConnect = false;
  /** GitHub's authorization endpoint knows one `prompt`: `select_account`, which shows its account picker. */
  readonly signInAgainPrompt = 'select_account';
  readonly #baseUrl: string;
  readonly #apiUrl: string;

  constructor(settings: { readonly baseUrl: string; readonly apiUrl: string }) {
    this.#baseUrl = settings.baseUrl;
    this.#apiUrl = settings.apiUrl;
  }

  async metadata(): Promise<oidc.ServerMetadata> {
    return {
      // GitHub has no issuer identifier and sends no `iss`: this one only names it (RFC 9207 2.4 does not apply).
      issuer: this.#baseUrl,
      authorization_endpoint: `${this.#baseUrl}/login/oauth/authorize`,
      token_endpoint: `${this.#baseUrl}/login/oauth/access_token`,
      // The client ID and secret go in the form body, as GitHub documents them.
      token_endpoint_auth_methods_supported: ['client_secret_post'],
      code_challenge_methods_supported: ['S256'],
    };
  }

  authorizationParameters(): Readonly<Record<string, string>> {
    return {};
  }

  /**
   * GitHub's answer as RFC 6749 5.1 / 5.2 would have it: a form-encoded body read as the JSON one, an `error` with
   * status 200 as the 400 error response it stands for, with GitHub's codes for a spent or unknown code or refresh
   * token (`bad_verification_code`, `bad_refresh_token`) as the `invalid_grant` they are, and the comma-separated
   * `scope` space-separated (RFC 6749 3.3). Anything else is handed on for openid-client to refuse.
   *
   * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
   */
  async tokenResponse(response: Response): Promise<Response> {
    const type = response.headers.get('content-type') ?? '';
    const text = await response.text();
    let body: Record<string, unknown> | undefined;
    if (type.includes('application/x-www-form-urlencoded')) {
      body = Object.fromEntries(new URLSearchParams(text));
    } else if (type.includes('json')) {
      try {
        body = asObject(JSON.parse(text)) as Record<string, unknown> | undefined;
      } catch {
        body = undefined;
      }
    }
    if (!body) return new Response(text, { status: response.status, headers: response.headers });
    const failed = typeof body['error'] === 'string';
    const scope = body['scope'];
    const normalised = {
      ...body,
      ...(failed && GRANT_ERRORS.includes(body['error'] as string) ? { error: 'invalid_grant' } : {}),
      ...(typeof scope === 'string'
        ? {
            scope: scope
              .split(',')
              .map((each) => each.trim())
              .filter(Boolean)
              .join(' '),
          }
        : {}),
    };
    return new Response(JSON.stringify(normalised), {
      status: failed && response.status === 200 ? 400 : response.status,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    });
  }

  async identity(config: oidc.Configuration, tokens: UpstreamTokenResponse): Promise<ProviderIdentity> {
    const user = await getJson(config, tokens.access_token, this.#api('/user'), API_HEADERS);
    const body = asObject(user.body);
    const subject = identifierOf(body?.['id']);
    if (user.status !== 200 || !body || typeof body['id'] !== 'number' || !subject) {
      throw new UpstreamError('rejected', `GitHub's /user answered ${user.status} without the person's id`);
    }
    const login = typeof body['login'] === 'string' && body['login'].length > 0 ? body['login'] : undefined;
    const email = await this.#verifiedPrimaryEmail(config, tokens.access_token);
    return {
      // The API that states the subject is what it is unique within: GitHub.com's, or one Enterprise Server's.
      issuer: this.#apiUrl,
      subject,
      displayName: login ?? subject,
      ...(login ? { login } : {}),
      profile: statedProfile([
        { ...(typeof body['name'] === 'string' ? { name: body['name'] } : {}), ...email },
      ]),
    };
  }

  /**
   * Organization `group` (`GET /user/memberships/orgs/{org}`, active) or team `org/team`
   * (`GET /orgs/{org}/teams/{team}/memberships/{username}`, active), asked with the person's token (scope
   * `read:org`). Not a member, or not allowed to see: false.
   *
   * @see https://docs.github.com/en/rest/orgs/members#get-an-organization-membership-for-the-authenticated-user
   * @see https://docs.github.com/en/rest/teams/members#get-team-membership-for-a-user
   */
  async isMember(
    config: oidc.Configuration,
    tokens: { readonly accessToken: string },
    identity: ProviderIdentity,
    group: string,
  ): Promise<boolean> {
    const [organization, team, ...rest] = group.split('/');
    if (
      !organization ||
      !SLUG.test(organization) ||
      rest.length > 0 ||
      (team !== undefined && !SLUG.test(team))
    ) {
      return false;
    }
    let path = `/user/memberships/orgs/${organization}`;
    if (team !== undefined) {
      if (!identity.login) return false;
      path = `/orgs/${organization}/teams/${team}/memberships/${encodeURIComponent(identity.login)}`;
    }
    const answer = await getJson(config, tokens.accessToken, this.#api(path), API_HEADERS);
    if (answer.status === 404 || answer.status === 403) return false;
    if (answer.status !== 200) {
      throw new UpstreamError('rejected', `GitHub's membership answered ${answer.status}`);
    }
    return asObject(answer.body)?.['state'] === 'active';
  }

  /** The primary address, when GitHub says it is verified; none without scope `user:email` or such an address. */
  async #verifiedPrimaryEmail(
    config: oidc.Configuration,
    accessToken: string,
  ): Promise<{ email?: string; email_verified?: true }> {
    const answer = await getJson(config, accessToken, this.#api('/user/emails'), API_HEADERS);
    if (answer.status !== 200 || !Array.isArray(answer.body)) return {};
    for (const entry of answer.body) {
      const address = asObject(entry);
      if (
        address?.['primary'] === true &&
        address['verified'] === true &&
        typeof address['email'] === 'string'
      ) {
        return { email: address['email'], email_verified: true };
      }
    }
    return {};
  }

  /**
   * "Delete an app authorization": the app, with its client ID and secret (HTTP Basic), names one of the person's
   * tokens, and every token of their authorization of the app ends; GitHub no longer lists the app for them. 422
   * (the token is unknown there) means the authorization is gone already. Without a client secret there is no way.
   *
   * @see https://docs.github.com/en/rest/apps/oauth-applications#delete-an-app-authorization
   */
  async revoke(
    client: { readonly clientId: string; readonly clientSecret?: string },
    tokens: { readonly accessToken: string },
  ): Promise<'revoked' | 'unsupported'> {
    if (!client.clientSecret) return 'unsupported';
    const response = await fetch(this.#api(`/applications/${encodeURIComponent(client.clientId)}/grant`), {
      method: 'DELETE',
      redirect: 'manual',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
        accept: 'application/vnd.github+json',
        'content-type': 'application/json',
        // GitHub's REST API refuses a request without one.
        'user-agent': 'portcullis-proxy',
      },
      body: JSON.stringify({ access_token: tokens.accessToken }),
    });
    await response.body?.cancel();
    if (response.status === 204 || response.status === 422) return 'revoked';
    throw new UpstreamError(
      'rejected',
      `GitHub answered ${response.status} to the deletion of the authorization`,
    );
  }

  #api(path: string): URL {
    return new URL(`${this.#apiUrl}${path}`);
  }
}
