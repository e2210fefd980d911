import { createMemoryStore, withCaches } from '../../../core';
import { newLink } from '../../storage/fixtures';
import { createTestCore } from '../../support/core-fixture';
import { countingStore } from '../../support/counting-store';

export interface RoundTrips {
  create: { cold: number; warm: number };
  follow: { cold: number; warm: number };
}

/**
 * Store round trips (calls through the store's ports, which a network store such as MongoDB
 * answers one round trip each) for one create and one follow: the first (cold) and the second
 * (warm) of each, on a fresh process. Counted, not timed, so they are exact on any machine.
 */
export async function countRoundTrips(caches: boolean): Promise<RoundTrips> {
  const backend = countingStore(createMemoryStore());
  const store = withCaches(backend, {
    linkCacheSize: caches ? 1000 : 0,
    identityTtlSeconds: caches ? 10 : 0,
  });
  const f = await createTestCore({ store });
  const caller = f.caller();
  const body = f.body();

  const measure = async (run: () => Promise<unknown>) => {
    backend.tally.reset();
    await run();
    return backend.tally.total();
  };
  const createCold = await measure(() => caller.links.create(body as never));
  const createWarm = await measure(() => caller.links.create(body as never));
  // A link made by "another process" (straight on the backend), followed twice.
  await backend.links.insert(newLink({ alias: 'elsewhere', redirectType: 302 }));
  const resolver = f.core.createCaller();
  const follow = () => resolver.links.resolve({ domain: f.domain, alias: 'elsewhere' });
  const followCold = await measure(follow);
  const followWarm = await measure(follow);
  await store.close();
  return {
    create: { cold: createCold, warm: createWarm },
    follow: { cold: followCold, warm: followWarm },
  };
}
