import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { AuthorizationServerOptions } from '../config/authorization-server.options.js';
import { MetadataDocumentRefusal } from '../clients/metadata-documents/metadata-document-refusal.js';
import { KEY_SET_REFRESH_COOLDOWN_MS, RemoteKeySets } from './remote-key-sets.js';

const EC = { kty: 'EC', crv: 'P-256', x: 'eA', y: 'eQ', kid: 'ec-1' };
const ROTATED = { ...EC, kid: 'ec-2' };

let server: Server;
let origin: string;
/** What each path answers, and how often it was asked. */
const documents = new Map<string, { status: number; body: unknown; headers?: Record<string, string> }>();
const requests = new Map<string, number>();

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? '/';
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const document = documents.get(path) ?? { status: 404, body: {} };
    response.writeHead(document.status, { 'content-type': 'application/json', ...document.headers });
    response.end(JSON.stringify(document.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  jest.restoreAllMocks();
});

const sets: RemoteKeySets[] = [];
afterAll(async () => {
  await Promise.all(sets.map((set) => set.onApplicationShutdown()));
});

function keySets(allowLoopback = true): RemoteKeySets {
  const options = {
    clientIdMetadataDocuments: { enabled: false, allowLoopback },
  } as AuthorizationServerOptions;
  const set = new RemoteKeySets(options);
  sets.push(set);
  return set;
}

/** Serves `body` at a fresh path; returns its URL. */
function serve(body: unknown, status = 200, headers?: Record<string, string>): string {
  const path = `/jwks-${documents.size}`;
  documents.set(path, { status, body, ...(headers ? { headers } : {}) });
  return `${origin}${path}`;
}

const asked = (url: string) => requests.get(new URL(url).pathname) ?? 0;

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  return error instanceof MetadataDocumentRefusal ? error.reason : `not a refusal: ${String(error)}`;
}

describe('RemoteKeySets', () => {
  it('returns the asymmetric public keys of the set, fetched once and then served from the cache', async () => {
    const url = serve({ keys: [{ kty: 'oct', k: 'c2VjcmV0' }, { ...EC, kid: 'private', d: 'x' }, EC] });
    const remote = keySets();
    expect(await remote.fetch(url)).toEqual({ keys: [EC] });
    expect(await remote.fetch(url, 'ec-1')).toEqual({ keys: [EC] });
    expect(asked(url)).toBe(1);
  });

  it('fetches again for a kid the cached set lacks, at most once per cooldown', async () => {
    const url = serve({ keys: [EC] });
    const remote = keySets();
    await remote.fetch(url);
    documents.set(new URL(url).pathname, { status: 200, body: { keys: [EC, ROTATED] } });
    // Within the cooldown: the cached set, however many unknown kids are asked for.
    expect(await remote.fetch(url, 'ec-2')).toEqual({ keys: [EC] });
    expect(await remote.fetch(url, 'unknown')).toEqual({ keys: [EC] });
    expect(asked(url)).toBe(1);
    const later = Date.now() + KEY_SET_REFRESH_COOLDOWN_MS;
    jest.spyOn(Date, 'now').mockReturnValue(later);
    expect(await remote.fetch(url, 'ec-2')).toEqual({ keys: [EC, ROTATED] });
    expect(await remote.fetch(url, 'unknown')).toEqual({ keys: [EC, ROTATED] });
    expect(asked(url)).toBe(2);
  });

  it('refuses a document without a usable key, a redirect and an error status, caching no failure', async () => {
    const symmetric = serve({ keys: [{ kty: 'oct', k: 'c2VjcmV0' }] });
    const remote = keySets();
    expect(await refusal(remote.fetch(symmetric))).toBe('invalid_document');
    expect(await refusal(remote.fetch(symmetric))).toBe('invalid_document');
    expect(asked(symmetric)).toBe(2);
    const elsewhere = serve({ keys: [EC] });
    expect(await refusal(remote.fetch(serve({}, 302, { location: elsewhere })))).toBe('redirect');
    expect(asked(elsewhere)).toBe(0);
    expect(await refusal(remote.fetch(serve({ keys: [EC] }, 500)))).toBe('status');
  });

  it('never connects to a loopback address unless the development exception is on (the SSRF guard)', async () => {
    const url = serve({ keys: [EC] });
    expect(await refusal(keySets(false).fetch(url))).toBe('address_refused');
    expect(asked(url)).toBe(0);
  });
});
