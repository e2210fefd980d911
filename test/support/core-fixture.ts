import {
  createCore,
  createMemoryStore,
  Provisioner,
  systemClock,
  type Core,
  type CoreDeps,
  type MemoryStore,
  type RequestContext,
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
 */
export interface CoreFixture {
  core: Core;
  store: MemoryStore;
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
  /** Links held by the store. */
  linkCount(): number;
}

export type TestCoreDeps = Partial<Omit<CoreDeps, 'store'>> & { store?: MemoryStore };

export async function createTestCore(deps: TestCoreDeps = {}): Promise<CoreFixture> {
  const store = deps.store ?? createMemoryStore();
  const provisioner = new Provisioner(store.identities, systemClock);

  const acme = await provisioner.saveOrganization({ id: 'acme', domain: ACME_DOMAIN });
  await provisioner.saveGroup({ organizationId: 'acme', apiId: '1', name: 'Default' });
  await provisioner.saveGroup({ organizationId: 'acme', apiId: '42', name: 'Campaigns' });
  const beta = await provisioner.saveOrganization({
    id: 'beta',
    domain: BETA_DOMAIN,
    scheme: 'http',
  });
  await provisioner.saveGroup({ organizationId: 'beta', apiId: '1' });
  const sleepy = await provisioner.saveOrganization({
    id: 'sleepy',
    domain: SLEEPY_DOMAIN,
    active: false,
  });
  await provisioner.saveGroup({ organizationId: 'sleepy', apiId: '1' });

  await provisioner.saveUser({ id: 'alice', organizations: ['acme', 'beta', 'sleepy'] });
  await provisioner.saveUser({ id: 'bob' });
  const alice = await provisioner.issueToken('alice');
  const bob = await provisioner.issueToken('bob');

  const core = createCore({ ...deps, store });
  const token = required(alice.token, 'token');
  const organizationKey = required(acme.secretKey, 'acme key');
  return {
    core,
    store,
    provisioner,
    token,
    outsiderToken: required(bob.token, 'outsider token'),
    organizationKey,
    otherOrganizationKey: required(beta.secretKey, 'beta key'),
    inactiveOrganizationKey: required(sleepy.secretKey, 'sleepy key'),
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
    linkCount: () => store.links.size,
  };
}

function required(value: string | undefined, what: string): string {
  if (value === undefined) throw new Error(`the Provisioner returned no ${what}`);
  return value;
}
