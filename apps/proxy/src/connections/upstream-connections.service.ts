import { Inject, Injectable } from '@nestjs/common';
import { PROXY_OPTIONS, type ProxyOptions } from '../proxy.options.js';
import { UpstreamClient } from '../upstream/upstream-client.service.js';
import { SIGN_IN_CONNECTION } from './connections.env.js';

/** One connection the proxy can keep tokens of: its name, and the proxy as a client of its provider. */
export interface UpstreamConnection {
  readonly name: string;
  readonly client: UpstreamClient;
  /** The provider's host, as a person knows it (`github.com`), for the pages. */
  readonly host: string;
}

/**
 * The connections whose tokens the vault keeps: the sign-in provider's (`upstream`, the `UPSTREAM_*` variables) and
 * each of `CONNECTIONS`, every one with its own upstream client. Their names are what an RFC 8693 exchange's
 * `audience` and a connect link name.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.1
 */
@Injectable()
export class UpstreamConnections {
  readonly #connections: ReadonlyMap<string, UpstreamConnection>;

  constructor(signIn: UpstreamClient, @Inject(PROXY_OPTIONS) options: ProxyOptions) {
    const connections = new Map<string, UpstreamConnection>();
    connections.set(SIGN_IN_CONNECTION, connection(SIGN_IN_CONNECTION, signIn));
    for (const [name, upstream] of options.connections) {
      connections.set(name, connection(name, new UpstreamClient(upstream)));
    }
    this.#connections = connections;
  }

  has(name: string): boolean {
    return this.#connections.has(name);
  }

  /** The connection named `name`, if the proxy has it. */
  get(name: string): UpstreamConnection | undefined {
    return this.#connections.get(name);
  }

  /** Every connection, the sign-in provider's first, then as configured. */
  all(): readonly UpstreamConnection[] {
    return [...this.#connections.values()];
  }
}

function connection(name: string, client: UpstreamClient): UpstreamConnection {
  return { name, client, host: providerHost(client.options.issuer) };
}

/** The host of an issuer (or the API base standing for one), as a person knows the provider. */
export function providerHost(issuer: string): string {
  try {
    return new URL(issuer).host;
  } catch {
    return issuer;
  }
}
