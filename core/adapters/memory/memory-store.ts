import type { Store } from '../../ports/store';
import { MemoryIdempotencyStore } from './memory-idempotency-store';
import { MemoryIdentityStore } from './memory-identity-store';
import { MemoryLinkStore, type MemoryLinkStoreOptions } from './memory-link-store';
import { MemoryVisitStore } from './memory-visit-store';

export interface MemoryStore extends Store {
  readonly identities: MemoryIdentityStore;
  readonly links: MemoryLinkStore;
  readonly idempotency: MemoryIdempotencyStore;
  readonly visits: MemoryVisitStore;
}

export const MEMORY_STORE_KIND = 'memory';

/** The embedded default store: everything in this process, gone when it exits. */
export function createMemoryStore(
  options: { links?: Omit<MemoryLinkStoreOptions, 'claims'> } = {},
): MemoryStore {
  const idempotency = new MemoryIdempotencyStore();
  return {
    kind: MEMORY_STORE_KIND,
    identities: new MemoryIdentityStore(),
    links: new MemoryLinkStore({ ...options.links, claims: idempotency }),
    idempotency,
    visits: new MemoryVisitStore(),
    ping: () => Promise.resolve(),
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
