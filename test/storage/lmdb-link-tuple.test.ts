import type { LinkRecord } from '../../core';
import type { StoredLink } from '../../core/adapters/lmdb/databases';
import { fromStoredLink, toStoredLink } from '../../core/adapters/lmdb/link-tuple';
import { newLink } from './fixtures';

/** LMDB's link tuple (link-tuple.ts): each field at its place, trailing absent ones not written. */
const active: LinkRecord = { ...newLink({ redirectType: 308, scheme: 'http' }), id: 7 };
const CREATED_MS = active.createdAt.getTime();
const KEY: [string, string] = [active.domain, active.alias];
const BASE = [7, active.url, 308, 'http', 'acme', '1', 'alice', CREATED_MS] as const;
const EIGHT: StoredLink = [...BASE];
const disabling = { reason: 'spam', at: new Date('2026-06-07T08:09:10.111Z'), by: 'user:bob' };
const EXPIRY = new Date('2027-01-02T03:04:05.678Z');

const roundTrip = (link: LinkRecord) => fromStoredLink(KEY, toStoredLink(link));

describe('LMDB link tuple', () => {
  it('writes an active link without expiry or limit as exactly 8 elements (as format 2 and 3 did)', () => {
    expect(toStoredLink(active)).toEqual(EIGHT);
    expect(roundTrip(active)).toStrictEqual(active);
  });

  it('places each optional field, null where absent before a present one', () => {
    const cases: Array<[LinkRecord, unknown[]]> = [
      [
        { ...active, disabled: disabling },
        [...EIGHT, ['spam', disabling.at.getTime(), 'user:bob']],
      ],
      [{ ...active, expiresAt: EXPIRY }, [...EIGHT, null, EXPIRY.getTime()]],
      [{ ...active, maxVisits: 3, visits: 0 }, [...EIGHT, null, null, 3, 0]],
      [
        { ...active, disabled: disabling, expiresAt: EXPIRY, maxVisits: 3, visits: 2 },
        [...EIGHT, ['spam', disabling.at.getTime(), 'user:bob'], EXPIRY.getTime(), 3, 2],
      ],
    ];
    for (const [link, tuple] of cases) {
      expect(toStoredLink(link)).toEqual(tuple);
      // Every field back, and no undefined key for an absent one.
      expect(roundTrip(link)).toStrictEqual(link);
    }
  });

  it('reads the tuples older formats wrote, and a limit without a count as 0 visits', () => {
    expect(fromStoredLink(KEY, EIGHT)).toStrictEqual(active);
    const format3Disabled: StoredLink = [...BASE, ['spam', disabling.at.getTime(), 'alice']];
    expect(fromStoredLink(KEY, format3Disabled)).toStrictEqual({
      ...active,
      disabled: { ...disabling, by: 'alice' },
    });
    const limitOnly: StoredLink = [...BASE, null, null, 4];
    expect(fromStoredLink(KEY, limitOnly)).toStrictEqual({ ...active, maxVisits: 4, visits: 0 });
  });

  it('keeps domain and alias in the key, not in the tuple', () => {
    const stored = toStoredLink({ ...active, disabled: disabling, expiresAt: EXPIRY });
    expect(stored).not.toContain(active.domain);
    expect(stored).not.toContain(active.alias);
    expect(fromStoredLink(['other.link', 'x'], stored)).toMatchObject({
      domain: 'other.link',
      alias: 'x',
    });
  });
});
