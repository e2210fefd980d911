import { ShortlinkError, type ErrorReason, type MemoryStore, type Store } from '../../core';

/**
 * Awaits `promise` and returns the ShortlinkError it rejected with; fails the test when it
 * resolved or rejected with anything else.
 */
export async function failureOf(promise: Promise<unknown>): Promise<ShortlinkError> {
  let outcome: unknown;
  try {
    outcome = await promise;
  } catch (error) {
    if (error instanceof ShortlinkError) return error;
    throw new Error(`expected a ShortlinkError, got ${String(error)}`, { cause: error });
  }
  throw new Error(
    `expected a ShortlinkError, but the call succeeded with ${JSON.stringify(outcome)}`,
  );
}

/** Awaits `promise` and expects the ShortlinkError it rejects with to carry `reason` and `messages`. */
export async function expectFailure(
  promise: Promise<unknown>,
  reason: ErrorReason,
  messages: readonly string[],
): Promise<ShortlinkError> {
  const error = await failureOf(promise);
  expect(error.reason).toBe(reason);
  expect(error.messages).toEqual(messages);
  return error;
}

type Part = 'identities' | 'links' | 'idempotency';

/** Every method of `target` rejects with `makeError()`. */
function rejectingEverything<T extends object>(target: T, makeError: () => Error): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      return () => Promise.reject(makeError());
    },
  });
}

/**
 * `base` (already provisioned) with the named parts failing: each of their methods rejects
 * with `makeError()`; `ping` too when `ping: true`. What a store adapter does when its backend
 * is down (BackendUnavailableError) or broken (any other error).
 */
export function failingStore(
  base: MemoryStore,
  makeError: () => Error,
  failing: { parts?: readonly Part[]; ping?: boolean },
): Store {
  const parts = new Set(failing.parts ?? []);
  return {
    kind: 'failing-memory',
    identities: parts.has('identities')
      ? rejectingEverything(base.identities, makeError)
      : base.identities,
    links: parts.has('links') ? rejectingEverything(base.links, makeError) : base.links,
    idempotency: parts.has('idempotency')
      ? rejectingEverything(base.idempotency, makeError)
      : base.idempotency,
    ping: failing.ping ? () => Promise.reject(makeError()) : () => base.ping(),
    flush: () => base.flush(),
    close: () => base.close(),
  };
}
