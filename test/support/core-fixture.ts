import {
  createCore,
  createMemoryStore,
  generateOrganizationKey,
  Provisioner,
  systemClock,
  type AliasGenerator,
  type Core,
  type CoreDeps,
  type MemoryStore,
  type RequestContext,
  type Store,
} from '../../core';

/** The in-process client `core.createCaller(...)` returns. */
export type CoreCaller = ReturnType<Core['createCaller']>;

export const ACME_DOMAIN = 'acme.link';
export const BETA_DOMAIN = 'beta.link';
export const SLEEPY_DOMAIN = 'sleepy.link';
/** The address test callers come from by default (TEST-NET-3, never a real client). */
export const TEST_CLIENT_ADDRESS = '203.0.113.7';

/**
 * A core on a fresh memory store, provisioned through the Provisioner:
 * - `acme` (active, https://acme.link, groups "1" and "42") — the organization most tests use;
 * - `beta` (active, http://beta.link, group "1");
 * - `sleepy` (inactive, sleepy.link, group "1");
 * - user `alice` (member of all three) with `token`; user `bob` (member of none) with
 *   `outsiderToken`.
 * Secrets are the ones the Provisioner returned once; the store holds only their hashes.
 * The store is a fresh memory store unless one is given (the storage suite passes each adapter's).
 */
export interface CoreFixture<S extends Store = MemoryStore> {
  core: Core;
  store: S;
  provisioner: Provisioner;
  token: string;
  outsiderToken: string;
  organizationKey: string;
  otherOrganizationKey: string;
  inactiveOrganizationKey: string;
  domain: string;
  otherDomain: string;
  groupId: string;
  /** A caller with alice's token from TEST_CLIENT_ADDRESS, unless `request` says otherwise. */
  caller(request?: RequestContext): CoreCaller;
  /** A valid create body for acme, group "1"; `overrides` replace or add fields. */
  body(overrides?: Record<string, unknown>): Record<string, unknown>;
  /** Links held by the store (the memory store only: other stores have no count to read). */
  linkCount(): number;
}

export type TestCoreDeps<S extends Store = MemoryStore> = Partial<Omit<CoreDeps, 'store'>> & {
  store?: S;
};

export async function createTestCore<S extends Store = MemoryStore>(
  deps: TestCoreDeps<S> = {},
): Promise<CoreFixture<S>> {
  // Without a store, S is its default, MemoryStore: the one made here.
  const store = (deps.store ?? createMemoryStore()) as S;
  const provisioner = new Provisioner(store, systemClock);

  // Keys given, so that a second fixture on the same store (a re-save keeps a stored key) has
  // keys to hand out too.
  const [acmeKey, betaKey, sleepyKey] = [1, 2, 3].map(() => generateOrganizationKey());
  await provisioner.saveOrganization({ id: 'acme', domain: ACME_DOMAIN, secretKey: acmeKey });
  await provisioner.saveGroup({ organizationId: 'acme', apiId: '1', name: 'Default' });
  await provisioner.saveGroup({ organizationId: 'acme', apiId: '42', name: 'Campaigns' });
  await provisioner.saveOrganization({
    id: 'beta',
    domain: BETA_DOMAIN,
    scheme: 'http',
    secretKey: betaKey,
  });
  await provisioner.saveGroup({ organizationId: 'beta', apiId: '1' });
  await provisioner.saveOrganization({
    id: 'sleepy',
    domain: SLEEPY_DOMAIN,
    active: false,
    secretKey: sleepyKey,
  });
  await provisioner.saveGroup({ organizationId: 'sleepy', apiId: '1' });

  await provisioner.saveUser({ id: 'alice', organizations: ['acme', 'beta', 'sleepy'] });
  await provisioner.saveUser({ id: 'bob' });
  const alice = await provisioner.issueToken('alice');
  const bob = await provisioner.issueToken('bob');

  const core = createCore({ ...deps, store });
  const token = required(alice.token, 'token');
  const organizationKey = required(acmeKey, 'acme key');
  return {
    core,
    store,
    provisioner,
    token,
    outsiderToken: required(bob.token, 'outsider token'),
    organizationKey,
    otherOrganizationKey: required(betaKey, 'beta key'),
    inactiveOrganizationKey: required(sleepyKey, 'sleepy key'),
    domain: ACME_DOMAIN,
    otherDomain: BETA_DOMAIN,
    groupId: '1',
    caller: (request = {}) =>
      core.createCaller({
        authorization: `Bearer ${token}`,
        clientAddress: TEST_CLIENT_ADDRESS,
        ...request,
      }),
    body: (overrides = {}) => ({
      organization_key: organizationKey,
      url_group_id: '1',
      url: 'https://example.com/some/long/path?q=1',
      ...overrides,
    }),
    linkCount: () => {
      if (!isMemoryStore(store)) throw new Error('linkCount() reads the memory store only');
      return store.links.size;
    },
  };
}

function isMemoryStore(store: Store): store is MemoryStore {
  return store.kind === 'memory';
}

/**
 * An alias generator that answers `aliases` in turn, then `fallback(n)` for the n-th call past
 * them (a distinct alias by default); `calls` counts every call.
 */
export function scriptedAliases(
  aliases: readonly string[],
  fallback: (n: number) => string = (n) => `fallback-${n}`,
): AliasGenerator & { readonly calls: number } {
  let calls = 0;
  return {
    generate: () => {
      calls += 1;
      return aliases[calls - 1] ?? fallback(calls - aliases.length);
    },
    get calls() {
      return calls;
    },
  };
}

function required(value: string | undefined, what: string): string {
  if (value === undefined) throw new Error(`the Provisioner returned no ${what}`);
  return value;
}
