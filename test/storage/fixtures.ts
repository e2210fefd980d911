import type { LinkRecord } from '../../core';

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
