import {
  createCore,
  Provisioner,
  systemClock,
  type AliasGenerator,
  type Core,
  type LinkRecord,
  type Store,
} from '../../core';

/** A link record with sensible defaults; `overrides` replace fields. */
export function linkRecord(overrides: Partial<LinkRecord> = {}): LinkRecord {
  return {
    id: 1,
    domain: 'acme.link',
    alias: 'promo',
    url: 'https://example.com/landing?utm=1',
    redirectType: 301,
    scheme: 'https',
    organizationId: 'acme',
    groupApiId: '1',
    userId: 'alice',
    createdAt: new Date('2026-05-04T10:11:12.345Z'),
    ...overrides,
  };
}

/** Generated aliases taken in order from `aliases` (then `fallback-<n>`). */
export function scriptedAliases(aliases: string[]): AliasGenerator {
  const queue = [...aliases];
  let counter = 0;
  return {
    generate: () => queue.shift() ?? `fallback-${(counter += 1)}`,
  };
}

export interface ProvisionedCore {
  core: Core;
  token: string;
  organizationKey: string;
  domain: string;
  /** A create body for organization `acme`, group "1". */
  body(overrides?: Record<string, unknown>): Record<string, unknown>;
  caller(): ReturnType<Core['createCaller']>;
}

/** Provisions acme (https://acme.link, group "1") and alice with a token, then builds a core. */
export async function provisionedCore(
  store: Store,
  aliasGenerator?: AliasGenerator,
): Promise<ProvisionedCore> {
  const provisioner = new Provisioner(store.identities, systemClock);
  const acme = await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link' });
  await provisioner.saveGroup({ organizationId: 'acme', apiId: '1', name: 'Default' });
  await provisioner.saveUser({ id: 'alice', organizations: ['acme'] });
  const issued = await provisioner.issueToken('alice');
  const core = createCore(aliasGenerator ? { store, aliasGenerator } : { store });
  const token = issued.token as string;
  const organizationKey = acme.secretKey as string;
  return {
    core,
    token,
    organizationKey,
    domain: acme.organization.domain,
    body: (overrides = {}) => ({
      organization_key: organizationKey,
      url_group_id: '1',
      url: 'https://example.com/a/long/path',
      ...overrides,
    }),
    caller: () =>
      core.createCaller({ authorization: `Bearer ${token}`, clientAddress: '203.0.113.9' }),
  };
}

/** Settles every promise; the outcome of each, in order. */
export async function settleAll<T>(
  promises: Array<Promise<T>>,
): Promise<Array<{ ok: true; value: T } | { ok: false; error: unknown }>> {
  const results = await Promise.allSettled(promises);
  return results.map((result) =>
    result.status === 'fulfilled'
      ? { ok: true as const, value: result.value }
      : { ok: false as const, error: result.reason as unknown },
  );
}
