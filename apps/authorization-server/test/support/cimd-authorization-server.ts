import type { LoggerService } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import {
  type HostLookup,
  type MetadataDocumentFetchOverrides,
  type ResolvedAddress,
} from '@portcullis/authorization';
import type { PortcullisAppModule } from '@portcullis/platform';
import { expect } from '@jest/globals';
import { HeadlessUserAgent, type TestDatabase, type UserAgentResponse } from '@portcullis/testing';
import { AppModule } from '../../src/app.module.js';
import {
  authorizationRequest,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
} from './authorization-server.fixture.js';

/**
 * The real AppModule, configured from `env` as usual, with test-only fetch options for client ID metadata
 * documents (a resolver and a CA), which the app never takes from its environment.
 */
export function appWithMetadataDocumentFetch(
  fetchOptions: MetadataDocumentFetchOverrides,
): PortcullisAppModule {
  return {
    configure: (env, overrides) =>
      AppModule.configure(env, overrides, { metadataDocumentFetch: fetchOptions }),
  };
}

/** A resolver answering from a fixed table (`evil.test` -> 127.0.0.1); any other name does not resolve. */
export function tableLookup(
  table: Record<string, readonly string[]>,
): HostLookup & { readonly asked: string[] } {
  const asked: string[] = [];
  const lookup = async (hostname: string): Promise<ResolvedAddress[]> => {
    asked.push(hostname);
    const addresses = table[hostname.toLowerCase()];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { asked });
}

export interface CimdServerOptions {
  readonly fetchOptions: MetadataDocumentFetchOverrides;
  readonly env?: Record<string, string>;
  readonly database?: TestDatabase;
}

/**
 * The authorization server of the fixture (issuer `http://localhost:<port>`), built by
 * {@link appWithMetadataDocumentFetch}.
 */
export function startCimdAuthorizationServer(
  options: CimdServerOptions,
): Promise<AuthorizationServerFixture> {
  return startAuthorizationServer({
    appModule: appWithMetadataDocumentFetch(options.fetchOptions),
    ...(options.env ? { env: options.env } : {}),
    ...(options.database ? { database: options.database } : {}),
  });
}

/** One warning logged through Nest's Logger. */
export interface CapturedWarning {
  readonly message: unknown;
  readonly params: readonly unknown[];
}

/**
 * Collects the warnings every Nest `Logger` of this process logs from now on (call it after the apps started:
 * starting an app installs its own logger). The reasons of refused documents are read from here.
 */
export function captureWarnings(): CapturedWarning[] {
  const warnings: CapturedWarning[] = [];
  const ignore = () => undefined;
  const logger: LoggerService = {
    log: ignore,
    error: ignore,
    debug: ignore,
    verbose: ignore,
    fatal: ignore,
    warn: (message: unknown, ...params: unknown[]) => {
      warnings.push({ message, params });
    },
  };
  Logger.overrideLogger(logger);
  return warnings;
}

/** The refusals logged for one client ID, in order: their reason codes and their details. */
export function refusals(
  warnings: readonly CapturedWarning[],
  clientId: string,
): { reason: string; detail: string }[] {
  return warnings
    .map(({ message }) => message as { clientId?: unknown; reason?: unknown; detail?: unknown })
    .filter((entry) => typeof entry === 'object' && entry !== null && entry.clientId === clientId)
    .map((entry) => ({ reason: String(entry.reason), detail: String(entry.detail) }));
}

/** The refusal reasons logged for one client ID, in order. */
export function refusalReasons(warnings: readonly CapturedWarning[], clientId: string): string[] {
  return refusals(warnings, clientId).map(({ reason }) => reason);
}

/**
 * A client ID the server cannot resolve: `/authorize` answers the HTML error page without redirecting, `/token`
 * answers 401 `invalid_client`, and nothing is written (no code, grant, token, consent or pending request).
 * Returns the `/authorize` response and how long it took (the fetch it waited for).
 */
export async function expectClientRefused(
  as: AuthorizationServerFixture,
  clientId: string,
  redirectUri: string,
): Promise<{ response: UserAgentResponse; elapsedMs: number }> {
  const before = await as.counts();
  const pending = await as.prisma.pendingAuthorization.count();
  const startedAt = Date.now();
  const response = await new HeadlessUserAgent().get(authorizationRequest(as, { clientId, redirectUri }).url);
  const elapsedMs = Date.now() - startedAt;
  expect(response.status).toBe(400);
  expect(response.location).toBeUndefined();
  expect(response.headers.get('content-type')).toContain('text/html');
  expect(response.body).toContain('unknown client');
  const token = await tokenRequest(as, {
    grant_type: 'authorization_code',
    code: 'x'.repeat(43),
    redirect_uri: redirectUri,
    client_id: clientId,
    code_verifier: 'v'.repeat(43),
  });
  expect(token.status).toBe(401);
  expect(token.body.error).toBe('invalid_client');
  expect(await as.counts()).toEqual(before);
  expect(await as.prisma.pendingAuthorization.count()).toBe(pending);
  return { response, elapsedMs };
}
