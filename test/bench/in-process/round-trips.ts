import { createCore, createMemoryStore, Provisioner, systemClock, withCaches } from '../../../core';
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
  const provisioner = new Provisioner(store.identities, systemClock);
  const { secretKey } = await provisioner.saveOrganization({ id: 'bench', domain: 'bench.link' });
  await provisioner.saveGroup({ organizationId: 'bench', apiId: '1' });
  await provisioner.saveUser({ id: 'bench-user', organizations: ['bench'] });
  const { token } = await provisioner.issueToken('bench-user');
  const core = createCore({ store });
  const caller = core.createCaller({ authorization: `Bearer ${token}`, clientAddress: '::1' });
  const body = { organization_key: secretKey, url_group_id: '1', url: 'https://example.com/' };

  const measure = async (run: () => Promise<unknown>) => {
    backend.tally.reset();
    await run();
    return backend.tally.total();
  };
  const createCold = await measure(() => caller.links.create(body as never));
  const createWarm = await measure(() => caller.links.create(body as never));
  // A link made by "another process" (straight on the backend), followed twice.
  await backend.links.insert({
    domain: 'bench.link',
    alias: 'elsewhere',
    url: 'https://example.com/elsewhere',
    redirectType: 302,
    scheme: 'https',
    organizationId: 'bench',
    groupApiId: '1',
    userId: 'bench-user',
    createdAt: new Date(),
  });
  const resolver = core.createCaller();
  const follow = () => resolver.links.resolve({ domain: 'bench.link', alias: 'elsewhere' });
  const followCold = await measure(follow);
  const followWarm = await measure(follow);
  await store.close();
  return {
    create: { cold: createCold, warm: createWarm },
    follow: { cold: followCold, warm: followWarm },
  };
}
