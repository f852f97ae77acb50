// Builds the authorized fetch under test with the headless user-agent and an in-memory store.
import {
  createAuthorizedFetch,
  type AuthorizedFetch,
  type AuthorizedFetchOptions,
} from '../../src/authorized-fetch.js';
import type { ProgressEvent } from '../../src/progress.js';
import { MemoryTokenStore } from '../../src/store/memory-token-store.js';
import { HeadlessUserAgent } from '../../src/user-agent/headless-user-agent.js';
import type { FakeResourceServer } from './resource-server.fixture.js';

export interface ClientUnderTest {
  readonly fetch: AuthorizedFetch;
  readonly store: MemoryTokenStore;
  readonly progress: ProgressEvent[];
}

export function clientFor(
  rs: FakeResourceServer,
  options: Partial<AuthorizedFetchOptions> = {},
): ClientUnderTest {
  const store = (options.store as MemoryTokenStore | undefined) ?? new MemoryTokenStore();
  const progress: ProgressEvent[] = [];
  const fetch = createAuthorizedFetch({
    resource: rs.url,
    userAgent: new HeadlessUserAgent(),
    ...options,
    store,
    onProgress: (event) => progress.push(event),
  });
  return { fetch, store, progress };
}
