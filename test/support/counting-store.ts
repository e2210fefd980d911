import type { ChangeWatch, IdentityChange, LinkChange, Store } from '../../core';

/** Every call the core made to a store port, by `port.method`. */
export class CallTally {
  readonly calls = new Map<string, number>();

  count(name: string): void {
    this.calls.set(name, (this.calls.get(name) ?? 0) + 1);
  }

  /** Calls since the last reset, in total. */
  total(): number {
    return [...this.calls.values()].reduce((sum, n) => sum + n, 0);
  }

  of(name: string): number {
    return this.calls.get(name) ?? 0;
  }

  reset(): void {
    this.calls.clear();
  }
}

/** `target` with each method call counted under `<port>.<method>`. */
function counted<T extends object>(target: T, port: string, tally: CallTally): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        tally.count(`${port}.${String(property)}`);
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}

export interface CountingStore extends Store {
  readonly tally: CallTally;
  /** Plays a change reported by the backend (as a change stream would). */
  emitIdentityChange(change: IdentityChange): void;
  /** Plays a link change reported by the backend (as a change stream would). */
  emitLinkChange(change: LinkChange): void;
}

/**
 * A store whose ports count every call the core makes (a port call is not always one network
 * round trip: see test/support/mongo-round-trips.ts for what reaches MongoDB and Redis).
 * `watchable` makes it offer identity and link change reports, as MongoDB on a replica set does.
 */
export function countingStore(inner: Store, options: { watchable?: boolean } = {}): CountingStore {
  const tally = new CallTally();
  const listeners = new Set<(change: IdentityChange) => void>();
  const linkListeners = new Set<(change: LinkChange) => void>();
  const store: CountingStore = {
    kind: inner.kind,
    tally,
    identities: counted(inner.identities, 'identities', tally),
    links: counted(inner.links, 'links', tally),
    idempotency: counted(inner.idempotency, 'idempotency', tally),
    ping: () => inner.ping(),
    flush: () => inner.flush(),
    close: () => inner.close(),
    emitIdentityChange: (change) => {
      for (const listener of listeners) listener(change);
    },
    emitLinkChange: (change) => {
      for (const listener of linkListeners) listener(change);
    },
  };
  if (options.watchable) {
    store.watchIdentityChanges = (listener): ChangeWatch => {
      listeners.add(listener);
      return { close: () => Promise.resolve(void listeners.delete(listener)) };
    };
    store.watchLinkChanges = (listener): ChangeWatch => {
      linkListeners.add(listener);
      return { close: () => Promise.resolve(void linkListeners.delete(listener)) };
    };
  }
  return store;
}
