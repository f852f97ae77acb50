// The few parts of panva's oidc-provider (a dev dependency without bundled types) the tests use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  export interface Configuration {
    clients?: Record<string, unknown>[];
    cookies?: { keys?: string[] };
    claims?: Record<string, string[]>;
    features?: Record<string, { enabled: boolean } & Record<string, unknown>>;
    findAccount?: (context: unknown, id: string) => Promise<Account | undefined> | Account | undefined;
    pkce?: { required?: () => boolean };
    ttl?: Record<string, number>;
    [key: string]: unknown;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
