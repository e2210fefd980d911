import type { LinkRecord, LinkStore, NewLink, Organization } from '../../core';

/** Organization acme (https, acme.link, key hash a...a); `overrides` replace fields. */
export function organization(overrides: Partial<Organization> = {}): Organization {
  return {
    id: 'acme',
    name: 'Acme',
    domain: 'acme.link',
    scheme: 'https',
    active: true,
    keyHash: 'a'.repeat(64),
    ...overrides,
  };
}

/** A link to insert (the store gives its id) with sensible defaults; `overrides` replace fields. */
export function newLink(overrides: Partial<NewLink> = {}): NewLink {
  return {
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

/** Inserts `link` and answers the stored record; fails the test when the alias was taken. */
export async function insertNew(links: LinkStore, link: NewLink): Promise<LinkRecord> {
  const outcome = await links.insert(link);
  if (outcome === 'alias_taken') {
    throw new Error(`expected ${link.domain}/${link.alias} to be inserted, it was taken`);
  }
  return outcome;
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
