import type { LoggerService } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import {
  type HostLookup,
  type MetadataDocumentFetchOverrides,
  type ResolvedAddress,
} from '@portcullis/authorization';
import type { PortcullisAppModule } from '@portcullis/platform';
import type { TestDatabase } from '@portcullis/testing';
import { AppModule } from '../../src/app.module.js';
import { startAuthorizationServer, type AuthorizationServerFixture } from './authorization-server.fixture.js';

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
export function startCimdAuthorizationServer(options: CimdServerOptions): Promise<AuthorizationServerFixture> {
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
