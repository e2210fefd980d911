import { setTimeout as delay } from 'node:timers/promises';
import { createCore, type Core, type MemoryStore, type RateLimiter, type Store } from '../../core';
import { startGrpc, validRequest } from './grpc-fixture';
import { bearer } from './grpc-metadata';
import { createTestCore, type CoreFixture } from './core-fixture';
import { startHttp } from './http-fixture';

/** `store` whose token lookups take `ms` each and are counted, as a remote store's would. */
export function withSlowTokenLookups(
  store: MemoryStore,
  ms: number,
): { store: Store; lookups: () => number } {
  let lookups = 0;
  const identities = new Proxy(store.identities, {
    get(target, property, receiver) {
      if (property !== 'findUserIdByTokenHash') {
        return Reflect.get(target, property, receiver) as unknown;
      }
      return async (tokenHash: string) => {
        lookups += 1;
        await delay(ms);
        return target.findUserIdByTokenHash(tokenHash);
      };
    },
  });
  return { store: { ...store, identities }, lookups: () => lookups };
}

export interface GuessOutcome {
  /** Spec codes of the parallel guesses, in any order. */
  codes: number[];
  /** The spec code a valid token got afterwards from the same address (0: success). */
  validCode: number;
  /** The spec code of one more guess after the valid token. */
  laterGuessCode: number;
}

export type Transport = 'REST' | 'gRPC';

/**
 * `guesses` parallel requests with unknown tokens from one address (127.0.0.1) through a real
 * server, on a core whose token lookups are slow, then the right token from the same address,
 * then one more guess.
 */
export async function guessInParallel(
  transport: Transport,
  authFailureLimiter: RateLimiter,
  guesses: number,
): Promise<GuessOutcome & { fixture: CoreFixture }> {
  const fixture = await createTestCore();
  const slow = withSlowTokenLookups(fixture.store, 40);
  const core: Core = createCore({ ...fixture.core.deps, store: slow.store, authFailureLimiter });
  const send = transport === 'REST' ? await restSender(core) : await grpcSender(core);
  try {
    const codes = await Promise.all(
      Array.from({ length: guesses }, (_, i) => send.create(fixture, `slpat_guess${i}`)),
    );
    const validCode = await send.create(fixture, fixture.token);
    const laterGuessCode = await send.create(fixture, 'slpat_oneMoreGuess');
    return { codes, validCode, laterGuessCode, fixture };
  } finally {
    await send.close();
  }
}

interface Sender {
  create(fixture: CoreFixture, token: string): Promise<number>;
  close(): Promise<void>;
}

async function restSender(core: Core): Promise<Sender> {
  const server = await startHttp(core);
  return {
    create: async (fixture, token) => {
      const answer = await server.create(fixture.body(), token);
      return (answer.json() as { code: number }).code;
    },
    close: () => server.close(),
  };
}

async function grpcSender(core: Core): Promise<Sender> {
  const server = await startGrpc(core);
  return {
    create: async (fixture, token) => {
      const outcome = await server.create(validRequest(fixture), bearer(token));
      const [code] = outcome.status.metadata.get('shortlink-error-code');
      return code === undefined ? 0 : Number(code);
    },
    close: () => server.close(),
  };
}

/** How many times each code occurs. */
export function tally(codes: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const code of codes) counts[code] = (counts[code] ?? 0) + 1;
  return counts;
}
