// Rules kept: the CIMD draft's "Server-Side Request Forgery" section, MCP 2026-07-28 "Authorization Server Abuse
// Protection" and the MCP Security Best Practices' "Server-Side Request Forgery (SSRF)": special-use addresses are
// refused at connect time, after resolution, so a name that resolves to a public address when checked and to a
// private one when connected (DNS rebinding) cannot slip through: the socket goes to the very address that was
// checked, and every address the name has must pass (one bad answer refuses the name). IP literals, including
// the dotted form the WHATWG URL parser makes of `2130706433`, `0x7f.1` or `017700000001`, are checked as well.
import { lookup as systemLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import type { HostLookup, ResolvedAddress } from './client-id-metadata-documents.options.js';
import { MetadataDocumentRefusal } from './metadata-document-refusal.js';
import { addressRefusal } from './special-use-address.check.js';

/**
 * The guard's settings: the development mode, the resolver, the trust anchors and the time limit.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-6
 */
export interface GuardedConnectorOptions {
  readonly allowLoopback: boolean;
  readonly lookup?: HostLookup;
  readonly ca?: string | Buffer | readonly (string | Buffer)[];
  /** Resolution and connection together end within this. */
  readonly timeoutMs: number;
}

/**
 * The system resolver, every address, in the order it returns them.
 *
 * @see https://nodejs.org/api/dns.html#dnspromiseslookuphostname-options
 */
export const defaultLookup: HostLookup = async (hostname) => {
  const addresses = await systemLookup(hostname, { all: true, verbatim: true });
  return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/**
 * An undici `connect` function that resolves the host itself, refuses special-use addresses, and connects to
 * the address it checked (TLS still verifies the certificate against the host name).
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-6
 * @see https://undici.nodejs.org/#/docs/api/Connector
 */
export function guardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const lookup = options.lookup ?? defaultLookup;
  const connect = buildConnector({
    timeout: options.timeoutMs,
    ...(options.ca ? { ca: options.ca as string | Buffer | (string | Buffer)[] } : {}),
  });
  return (connectOptions, callback) => {
    const loopbackOnly = connectOptions.protocol === 'http:';
    checkedAddress(connectOptions.hostname, lookup, options, loopbackOnly).then(
      ({ address, port }) =>
        connect(
          { ...connectOptions, hostname: address, ...(port === undefined ? {} : { port: String(port) }) },
          callback,
        ),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  };
}

/**
 * The address to connect to: the literal itself, or the first answer once every answer has passed (with the port a
 * test resolver may give it).
 */
async function checkedAddress(
  hostname: string,
  lookup: HostLookup,
  options: GuardedConnectorOptions,
  loopbackOnly: boolean,
): Promise<{ address: string; port?: number }> {
  const policy = { allowLoopback: options.allowLoopback, loopbackOnly };
  const literal = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(literal) !== 0) {
    const refused = addressRefusal(literal, policy);
    if (refused) throw new MetadataDocumentRefusal('address_refused', `${literal} is a ${refused} address`);
    return { address: literal };
  }
  const answers = await resolve(literal, lookup, options.timeoutMs);
  const [first] = answers;
  if (!first) throw new MetadataDocumentRefusal('dns_failed', `${literal} has no address`);
  for (const { address } of answers) {
    const refused = addressRefusal(address, policy);
    if (refused) {
      throw new MetadataDocumentRefusal(
        'address_refused',
        `${literal} resolves to ${address}, a ${refused} address`,
      );
    }
  }
  return first.port === undefined ? { address: first.address } : { address: first.address, port: first.port };
}

async function resolve(
  hostname: string,
  lookup: HostLookup,
  timeoutMs: number,
): Promise<readonly ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new MetadataDocumentRefusal('timeout', `resolving ${hostname} took too long`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([lookup(hostname), timeout]);
  } catch (error) {
    if (error instanceof MetadataDocumentRefusal) throw error;
    throw new MetadataDocumentRefusal(
      'dns_failed',
      `${hostname} did not resolve: ${(error as Error).message}`,
    );
  } finally {
    clearTimeout(timer);
  }
}
