import {
  LinkDomainTakenError,
  OrganizationExistsError,
  OrganizationKeyTakenError,
  TokenTakenError,
  ShortlinkError,
  type CompletedRecord,
  type IdempotencyScope,
  type LinkActing,
  type LinkActor,
  type LinkChangeOutcome,
  type LinkDisabling,
  type LinkListQuery,
  type LinkPosition,
  type LinkRecord,
  type RunningRecord,
  type Store,
} from '../../core';
import { positionOf } from '../../core/ports/link-store';
import { createTestCore, scriptedAliases } from '../support/core-fixture';
import { insertNew, newLink, organization, settleAll } from './fixtures';
import { describeAdminIdentityContract } from './admin-identity-contract';

/** How the suite obtains stores from one adapter. */
export interface StoreFactory {
  /** A new, empty store (its own database for a server-backed adapter). */
  fresh(): Promise<Store>;
  /**
   * Whether an insert refused for a taken alias has still used an id (MongoDB takes the id from
   * its counter before the insert); otherwise it uses none.
   */
  takenAliasUsesId?: boolean;
  /**
   * Whether a link keeps the creation time it was given even when it is before the previous
   * link's (MongoDB: ids of several processes' blocks do not follow time); otherwise the store
   * takes the previous link's time then, so ids and creation times agree.
   */
  createdAtAsGiven?: boolean;
  /**
   * Closes `store` and opens the same data again (a restart), for adapters whose data outlives
   * one store object; absent for the in-memory store, whose data goes with it.
   */
  reopen?(store: Store): Promise<Store>;
}

const CONCURRENCY = 25;

/** A change's outcome; fails the test when the store answered 'held' or null. */
function outcome(answer: LinkChangeOutcome | 'held' | null): LinkChangeOutcome {
  if (answer === null || answer === 'held') {
    throw new Error(`expected the link as changed, the store answered ${String(answer)}`);
  }
  return answer;
}

// Far ahead of any real clock: MongoDB's TTL monitor must not remove these records mid-test.
const T0 = new Date('2099-06-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const ALICE_KEY: IdempotencyScope = { userId: 'alice', key: 'order-42' };

function running(
  owner: string,
  expiresInSeconds = 60,
  fingerprint = 'f'.repeat(64),
): RunningRecord {
  return { state: 'running', owner, fingerprint, expiresAt: at(expiresInSeconds) };
}

function completed(code: number, body: string, expiresInSeconds = 86400): CompletedRecord {
  return {
    state: 'completed',
    fingerprint: 'f'.repeat(64),
    outcome: { code, body },
    expiresAt: at(expiresInSeconds),
  };
}

/**
 * The storage contract every adapter must meet, run unchanged against each of them: what the
 * ports promise (atomic alias insert giving increasing ids, idempotent provisioning upserts) plus a
 * create through the core on that store.
 */
export function describeStoreContract(getFactory: () => StoreFactory): void {
  let store: Store;
  const opened: Store[] = [];

  beforeEach(async () => {
    store = await getFactory().fresh();
    opened.push(store);
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });

  describe('links', () => {
    it('stores a link, answers it with its id, and returns every field on lookup', async () => {
      const link = newLink({ redirectType: 307, scheme: 'http' });
      const stored = await store.links.insert(link);
      expect(stored).toEqual({ ...link, id: 1 });
      await expect(store.links.findByAlias('acme.link', 'promo')).resolves.toEqual(stored);
    });

    it('answers a copy: changing an answer changes nothing stored', async () => {
      const stored = await insertNew(store.links, newLink());
      stored.url = 'https://changed.example/';
      const found = await store.links.findByAlias('acme.link', 'promo');
      expect(found?.url).toBe(newLink().url);
      if (found) found.url = 'https://changed.example/';
      await expect(store.links.findByAlias('acme.link', 'promo')).resolves.toEqual({
        ...newLink(),
        id: 1,
      });
    });

    it('answers null for an alias nobody took', async () => {
      await insertNew(store.links, newLink());
      await expect(store.links.findByAlias('acme.link', 'other')).resolves.toBeNull();
      await expect(store.links.findByAlias('other.link', 'promo')).resolves.toBeNull();
    });

    it('refuses a second link with the same alias on the same domain and keeps the first', async () => {
      const first = await insertNew(
        store.links,
        newLink({ url: 'https://example.com/first', userId: 'alice' }),
      );
      await expect(
        store.links.insert(newLink({ url: 'https://example.com/second', userId: 'bob' })),
      ).resolves.toBe('alias_taken');
      await expect(store.links.findByAlias('acme.link', 'promo')).resolves.toEqual(first);
    });

    it('keeps aliases unique per domain, not globally', async () => {
      const acme = await insertNew(store.links, newLink());
      const beta = await insertNew(
        store.links,
        newLink({ domain: 'beta.link', url: 'https://b.example/' }),
      );
      expect(beta.id).not.toBe(acme.id);
      await expect(store.links.findByAlias('acme.link', 'promo')).resolves.toEqual(acme);
      await expect(store.links.findByAlias('beta.link', 'promo')).resolves.toEqual(beta);
    });

    it('treats aliases case-sensitively', async () => {
      const upper = await insertNew(store.links, newLink({ alias: 'Promo' }));
      const lower = await insertNew(store.links, newLink({ alias: 'promo' }));
      await insertNew(store.links, newLink({ alias: 'PROMO' }));
      await expect(store.links.insert(newLink({ alias: 'Promo' }))).resolves.toBe('alias_taken');
      await expect(store.links.findByAlias('acme.link', 'Promo')).resolves.toEqual(upper);
      await expect(store.links.findByAlias('acme.link', 'promo')).resolves.toEqual(lower);
      expect(await store.links.findByAlias('acme.link', 'pROMO')).toBeNull();
    });

    it(`lets exactly one of ${CONCURRENCY} concurrent inserts of one alias win`, async () => {
      const outcomes = await Promise.all(
        Array.from({ length: CONCURRENCY }, (_, i) =>
          store.links.insert(newLink({ url: `https://example.com/${i + 1}` })),
        ),
      );
      const winners = outcomes.filter((o) => o !== 'alias_taken');
      expect(winners).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'alias_taken')).toHaveLength(CONCURRENCY - 1);
      await expect(store.links.findByAlias('acme.link', 'promo')).resolves.toEqual(winners[0]);
      const next = await insertNew(store.links, newLink({ alias: 'after' }));
      expect(next.id).toBe(getFactory().takenAliasUsesId ? CONCURRENCY + 1 : 2);
    });

    it('lists every domain a link is stored under, once each, and no other', async () => {
      await expect(store.links.listDomains()).resolves.toEqual([]);
      // Domains that share a beginning, sort around a port or a longer name, and every alias
      // character: each domain is listed once however many links it holds.
      const domains = [
        'a.link',
        'a.link:443',
        'a.link2',
        'a.lin',
        '[::1]:8080',
        'xn--bcher-kva.link',
      ];
      for (const [i, domain] of domains.entries()) {
        for (const alias of ['-', '0', 'A', '_', 'z', 'z'.repeat(64)]) {
          await insertNew(store.links, newLink({ domain, alias, url: `https://e.example/${i}` }));
        }
      }
      await expect(store.links.insert(newLink({ domain: 'a.link', alias: 'z' }))).resolves.toBe(
        'alias_taken',
      );
      expect((await store.links.listDomains()).sort()).toEqual([...domains].sort());
      // An organization's domain with no link is none of them.
      await store.identities.saveOrganization(organization({ domain: 'empty.link' }));
      expect(await store.links.listDomains()).toHaveLength(domains.length);
    });

    it('counts the links stored under one domain exactly, of every organization and state, up to a limit', async () => {
      await expect(store.links.countByDomain('a.link')).resolves.toBe(0);
      // Neighbours in key order (a port, a longer name, a shorter one) hold links that are not
      // a.link's; a disabled link and another organization's still count.
      const counted = ['-', '0', 'A', '_', 'z', 'z'.repeat(64)];
      for (const alias of counted) {
        await insertNew(store.links, newLink({ domain: 'a.link', alias }));
      }
      for (const domain of ['a.link:443', 'a.link2', 'a.lin', 'b.link']) {
        await insertNew(store.links, newLink({ domain, alias: 'z' }));
      }
      const other = await insertNew(
        store.links,
        newLink({ domain: 'a.link', alias: 'beta', organizationId: 'beta' }),
      );
      await store.links.setDisabled(
        other.id,
        { reason: 'kit', at: T0, by: 'admin' },
        { at: T0, by: 'admin', refuseHeld: false },
      );
      await expect(store.links.countByDomain('a.link')).resolves.toBe(counted.length + 1);
      await expect(store.links.countByDomain('a.link', 3)).resolves.toBe(3);
      await expect(store.links.countByDomain('a.link', 100)).resolves.toBe(counted.length + 1);
      await expect(store.links.countByDomain('a.link:443')).resolves.toBe(1);
      // Stored domains are lower case: another case is another (empty) key.
      await expect(store.links.countByDomain('A.LINK')).resolves.toBe(0);
      await expect(store.links.countByDomain('c.link', 1)).resolves.toBe(0);
    });

    it('inserts many distinct aliases concurrently, all retrievable', async () => {
      const links = Array.from({ length: CONCURRENCY }, (_, i) =>
        newLink({ alias: `a${i}`, url: `https://example.com/${i}` }),
      );
      const stored = await Promise.all(links.map((link) => insertNew(store.links, link)));
      for (const [i, link] of links.entries()) {
        expect(stored[i]).toEqual({ ...link, id: stored[i]?.id });
        await expect(store.links.findByAlias(link.domain, link.alias)).resolves.toEqual(stored[i]);
      }
    });
  });

  describe('ids (given by links.insert)', () => {
    const idOf = async (alias: string) => (await insertNew(store.links, newLink({ alias }))).id;

    it('starts at 1 and increases by one', async () => {
      expect(await idOf('a')).toBe(1);
      expect(await idOf('b')).toBe(2);
      expect(await idOf('c')).toBe(3);
    });

    it(`gives ${CONCURRENCY * 2} concurrent inserts distinct, consecutive ids`, async () => {
      const first = await idOf('first');
      const ids = await Promise.all(
        Array.from({ length: CONCURRENCY * 2 }, (_, i) => idOf(`concurrent-${i}`)),
      );
      expect(new Set(ids).size).toBe(ids.length);
      const sorted = [...ids].sort((a, b) => a - b);
      expect(sorted).toEqual(Array.from({ length: ids.length }, (_, i) => first + 1 + i));
      expect(await idOf('last')).toBe(first + ids.length + 1);
    });

    it('writes nothing for a taken alias; the id it may use is never given to a link', async () => {
      const first = await insertNew(store.links, newLink({ alias: 'taken' }));
      await expect(
        store.links.insert(newLink({ alias: 'taken', url: 'https://example.com/else' })),
      ).resolves.toBe('alias_taken');
      await expect(store.links.findByAlias('acme.link', 'taken')).resolves.toEqual(first);
      const usedByTaken = getFactory().takenAliasUsesId ? 1 : 0;
      expect(await idOf('next')).toBe(first.id + 1 + usedByTaken);
    });
  });

  describe('links by id, listings and state (findById, list, setDisabled)', () => {
    const AT = new Date('2026-06-07T08:09:10.111Z');
    // A new Date each time: a test may change the one it was given.
    const disabling = (
      reason = 'reported as phishing',
      by: LinkActor = 'user:alice',
      at = new Date(AT),
    ): LinkDisabling => ({ reason, at, by });
    /** A member's change (refused on a link the operator holds), at AT. */
    const member = (userId = 'alice', at = new Date(AT)): LinkActing => ({
      at,
      by: `user:${userId}`,
      refuseHeld: true,
    });
    /** The change that makes `asked`: by its author, at its time. */
    const actingOf = (asked: LinkDisabling): LinkActing => ({
      at: asked.at,
      by: asked.by as LinkActor,
      refuseHeld: true,
    });

    /**
     * Links inserted one by one in this order (so ids 1 to 12 follow it), of organizations whose
     * ids start alike (acm, acme, acme-eu) and of groups whose api ids start alike (1, 10): a
     * listing must keep each apart.
     */
    const LAYOUT: Array<[organizationId: string, groupApiId: string]> = [
      ['acme', '1'],
      ['acme-eu', '1'],
      ['acme', '10'],
      ['acm', '1'],
      ['acme', '1'],
      ['acme-eu', '10'],
      ['acme', '10'],
      ['acme', '1'],
      ['acm', '10'],
      ['acme-eu', '1'],
      ['acme', '1'],
      ['acme', '10'],
    ];

    async function insertLayout(): Promise<LinkRecord[]> {
      const stored: LinkRecord[] = [];
      for (const [i, [organizationId, groupApiId]] of LAYOUT.entries()) {
        const link = newLink({
          domain: `${organizationId}.link`,
          alias: `l${i}`,
          url: `https://example.com/${i}`,
          organizationId,
          groupApiId,
        });
        stored.push(await insertNew(store.links, link));
      }
      return stored;
    }

    /** Newest first: by creation time, then id, both descending. */
    const newestFirst = (a: LinkPosition, b: LinkPosition) =>
      b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id;

    /** What `query` must answer from `links`, ignoring limit: newest first, after `before`. */
    const expected = (links: LinkRecord[], query: Omit<LinkListQuery, 'limit'>) =>
      links
        .filter(
          (link) =>
            (query.organizationId === undefined || link.organizationId === query.organizationId) &&
            (query.groupApiId === undefined || link.groupApiId === query.groupApiId) &&
            (query.before === undefined || newestFirst(query.before, link) > 0),
        )
        .sort(newestFirst);

    /** Every page of `query` (`limit` per page), each next page after the last of the previous. */
    async function pages(query: Omit<LinkListQuery, 'before'>): Promise<LinkRecord[][]> {
      const all: LinkRecord[][] = [];
      let before: LinkPosition | undefined;
      // Bounded: a listing that repeats a link would otherwise page for ever.
      while (all.length <= LAYOUT.length + 1) {
        const page = await store.links.list({
          ...query,
          ...(before !== undefined && { before }),
        });
        all.push(page);
        const last = page[page.length - 1];
        if (page.length < query.limit || !last) return all;
        before = positionOf(last);
      }
      throw new Error(`more pages than links: ${JSON.stringify(all.slice(0, 3))}`);
    }

    const QUERIES: Array<Omit<LinkListQuery, 'limit'>> = [
      {},
      { organizationId: 'acme' },
      { organizationId: 'acme-eu' },
      { organizationId: 'acm' },
      { organizationId: 'acme', groupApiId: '1' },
      { organizationId: 'acme', groupApiId: '10' },
      { organizationId: 'acme-eu', groupApiId: '10' },
      { organizationId: 'acm', groupApiId: '10' },
    ];

    it('finds a link by id as it was inserted, and null for an id no link has', async () => {
      const links = await insertLayout();
      for (const link of links) {
        await expect(store.links.findById(link.id)).resolves.toEqual(link);
        await expect(store.links.findByAlias(link.domain, link.alias)).resolves.toEqual(link);
      }
      for (const id of [0, -1, links.length + 1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER]) {
        await expect(store.links.findById(id)).resolves.toBeNull();
      }
    });

    it('answers copies by id, in listings and from setDisabled: changing one changes nothing stored', async () => {
      const stored = await insertNew(store.links, newLink());
      const byId = await store.links.findById(stored.id);
      if (!byId) throw new Error('link 1 not found');
      byId.url = 'https://changed.example/';
      byId.createdAt.setTime(0);
      const [listed] = await store.links.list({ limit: 10 });
      if (!listed) throw new Error('link 1 not listed');
      listed.organizationId = 'changed';
      listed.createdAt.setTime(0);
      await expect(store.links.findById(stored.id)).resolves.toEqual(stored);

      const asked = disabling();
      const answer = outcome(await store.links.setDisabled(stored.id, asked, member()));
      // The caller's object, and the answer, changed afterwards.
      asked.reason = 'changed';
      asked.at.setTime(0);
      if (answer.link.disabled) {
        answer.link.disabled.by = 'changed';
        answer.link.disabled.at.setTime(0);
      }
      await expect(store.links.findById(stored.id)).resolves.toEqual({
        ...stored,
        disabled: disabling(),
      });
    });

    it('lists every link newest first, or one organization’s, or one URL group’s', async () => {
      const links = await insertLayout();
      for (const query of QUERIES) {
        const found = await store.links.list({ ...query, limit: 100 });
        expect([query, found]).toEqual([query, expected(links, query)]);
      }
      // Every listing above holds something (the layout is worth checking against).
      for (const query of QUERIES) expect(expected(links, query).length).toBeGreaterThan(0);
      for (const query of [
        { organizationId: 'nobody' },
        { organizationId: 'acme', groupApiId: '2' },
      ]) {
        await expect(store.links.list({ ...query, limit: 100 })).resolves.toEqual([]);
      }
    });

    it('answers at most `limit` links, after the position `before` (exclusive)', async () => {
      const links = await insertLayout();
      const ids = async (query: LinkListQuery) => (await store.links.list(query)).map((l) => l.id);
      // The layout's links share one creation time: the id orders them.
      const at = (id: number) => ({ createdAt: links[0]!.createdAt, id });
      await expect(ids({ limit: 3 })).resolves.toEqual([12, 11, 10]);
      await expect(ids({ limit: 1 })).resolves.toEqual([12]);
      await expect(ids({ before: at(5), limit: 100 })).resolves.toEqual([4, 3, 2, 1]);
      await expect(ids({ before: at(5), limit: 2 })).resolves.toEqual([4, 3]);
      await expect(ids({ before: at(2), limit: 100 })).resolves.toEqual([1]);
      await expect(ids({ before: at(1), limit: 100 })).resolves.toEqual([]);
      // Above every id: from the newest.
      await expect(ids({ before: at(1000), limit: 2 })).resolves.toEqual([12, 11]);
      // Below an id of another organization (or group) than the one listed.
      await expect(ids({ organizationId: 'acme', before: at(10), limit: 100 })).resolves.toEqual([
        8, 7, 5, 3, 1,
      ]);
      await expect(
        ids({ organizationId: 'acme', groupApiId: '10', before: at(12), limit: 1 }),
      ).resolves.toEqual([7]);
      expect(links).toHaveLength(12);
    });

    it('lists by creation time, then id, as the inserts answered them', async () => {
      const base = newLink().createdAt.getTime();
      // Creation times that go back and forth as ids grow (clocks read before other commits).
      const offsets = [0, 5_000, -3_000, 5_000, 1_000, -10_000, 5_000];
      const inserted: LinkRecord[] = [];
      for (const [i, offset] of offsets.entries()) {
        const link = newLink({ alias: `t${i}`, createdAt: new Date(base + offset) });
        inserted.push(await insertNew(store.links, link));
      }
      const listed = await store.links.list({ organizationId: 'acme', limit: 100 });
      expect(listed).toEqual([...inserted].sort(newestFirst));
      for (const limit of [1, 2, 3]) {
        const all = await pages({ organizationId: 'acme', limit });
        expect(all.flat()).toEqual(listed);
      }
      // The embedded stores never store a creation time before the previous link's.
      if (!getFactory().createdAtAsGiven) {
        const times = inserted.map((link) => link.createdAt.getTime());
        expect(times).toEqual([...times].sort((a, b) => a - b));
      }
    });

    it('pages by position through every listing, repeating and missing nothing', async () => {
      const links = await insertLayout();
      for (const query of QUERIES) {
        for (const limit of [1, 2, 5]) {
          const all = await pages({ ...query, limit });
          for (const page of all) expect(page.length).toBeLessThanOrEqual(limit);
          expect([query, limit, all.flat()]).toEqual([query, limit, expected(links, query)]);
        }
      }
    });

    it('pages through while links are inserted: every link there at the start is seen exactly once', async () => {
      const other = (i: number) =>
        newLink({ domain: 'beta.link', alias: `b${i}`, organizationId: 'beta', groupApiId: '1' });
      const before: LinkRecord[] = [];
      for (let i = 0; i < 30; i += 1) {
        before.push(await insertNew(store.links, newLink({ alias: `a${i}` })));
        before.push(await insertNew(store.links, other(i)));
      }
      let inserted = 0;
      for (const query of [
        {},
        { organizationId: 'acme' },
        { organizationId: 'acme', groupApiId: '1' },
      ]) {
        const atStart = [...before];
        const seen: LinkRecord[] = [];
        let after: LinkPosition | undefined;
        let pageCount = 0;
        for (;;) {
          // Each page is read while two links (one of each organization) are being inserted.
          const [page, ...added] = await Promise.all([
            store.links.list({ ...query, limit: 7, ...(after !== undefined && { before: after }) }),
            insertNew(store.links, newLink({ alias: `new-${inserted}` })),
            insertNew(store.links, other(1000 + inserted)),
          ]);
          inserted += 1;
          pageCount += 1;
          before.push(...added);
          seen.push(...page);
          const last = page[page.length - 1];
          if (page.length < 7 || !last) break;
          after = positionOf(last);
          expect(pageCount).toBeLessThan(20);
        }
        // Several pages, so links were inserted between pages, not only before the first.
        expect(pageCount).toBeGreaterThanOrEqual(3);
        // Every link seen is the query's, once, newest first.
        expect(seen).toEqual(expected(seen, query));
        expect(new Set(seen.map((link) => link.id)).size).toBe(seen.length);
        // Every link there at the start, exactly once; beside them only links inserted during
        // the listing, all newer.
        const existing = expected(atStart, query);
        const newer = seen.filter((link) => !atStart.some((old) => old.id === link.id));
        expect(seen.filter((link) => !newer.includes(link))).toEqual(existing);
        for (const link of newer) expect(link.id).toBeGreaterThan(existing[0]?.id ?? 0);
      }
    });

    it('disables a link, recording reason, time and who: lookups and listings see it', async () => {
      const link = await insertNew(store.links, newLink());
      const other = await insertNew(store.links, newLink({ alias: 'other' }));
      const disabled = { ...link, disabled: disabling() };
      await expect(store.links.setDisabled(link.id, disabling(), member())).resolves.toEqual({
        link: disabled,
        changed: true,
      });
      await expect(store.links.findById(link.id)).resolves.toEqual(disabled);
      await expect(store.links.findByAlias('acme.link', 'promo')).resolves.toEqual(disabled);
      await expect(store.links.list({ limit: 10 })).resolves.toEqual([other, disabled]);
      await expect(
        store.links.list({ organizationId: 'acme', groupApiId: '1', limit: 10 }),
      ).resolves.toEqual([other, disabled]);
      // The other link is left active.
      const untouched = await store.links.findById(other.id);
      expect(untouched).toEqual(other);
      expect(untouched).not.toHaveProperty('disabled');
    });

    it('keeps the first disabling when disabled again (changed: false)', async () => {
      const link = await insertNew(store.links, newLink());
      await store.links.setDisabled(link.id, disabling(), member());
      const again = disabling('another reason', 'user:bob', new Date(AT.getTime() + 60_000));
      await expect(store.links.setDisabled(link.id, again, member('bob'))).resolves.toEqual({
        link: { ...link, disabled: disabling() },
        changed: false,
      });
      await expect(store.links.findById(link.id)).resolves.toEqual({
        ...link,
        disabled: disabling(),
      });
    });

    it('enables a disabled link, clearing its state; enabling an active link changes nothing', async () => {
      const link = await insertNew(store.links, newLink());
      const active = await store.links.setDisabled(link.id, null, member());
      expect(active).toEqual({ link, changed: false });
      expect(active?.link).not.toHaveProperty('disabled');
      await store.links.setDisabled(link.id, disabling(), member());
      const enabled = await store.links.setDisabled(link.id, null, member());
      expect(enabled).toEqual({ link, changed: true });
      expect(enabled?.link).not.toHaveProperty('disabled');
      for (const found of [
        await store.links.findById(link.id),
        await store.links.findByAlias('acme.link', 'promo'),
        ...(await store.links.list({ limit: 1 })),
      ]) {
        expect(found).toEqual(link);
        expect(found).not.toHaveProperty('disabled');
      }
      await expect(store.links.setDisabled(link.id, null, member())).resolves.toEqual({
        link,
        changed: false,
      });
      // Disabled anew: the new reason, time and author.
      const later = disabling('second report', 'user:bob', new Date(AT.getTime() + 1000));
      await expect(store.links.setDisabled(link.id, later, member('bob'))).resolves.toEqual({
        link: { ...link, disabled: later },
        changed: true,
      });
    });

    it('answers null for an id no link has, and writes nothing', async () => {
      const link = await insertNew(store.links, newLink());
      for (const id of [0, -1, 2, 1.5, Number.NaN]) {
        await expect(store.links.setDisabled(id, disabling(), member())).resolves.toBeNull();
        await expect(store.links.setDisabled(id, null, member())).resolves.toBeNull();
      }
      // No id was used, and the next link (id 2, asked above) is not born disabled.
      const next = await insertNew(store.links, newLink({ alias: 'next' }));
      expect(next.id).toBe(2);
      await expect(store.links.findById(2)).resolves.toEqual(next);
      await expect(store.links.findById(link.id)).resolves.toEqual(link);
    });

    it('changes nothing else of the link; a disabled link keeps its alias and the ids go on', async () => {
      const link = await insertNew(
        store.links,
        newLink({ redirectType: 308, scheme: 'http', groupApiId: '10', userId: 'carol' }),
      );
      const answer = outcome(await store.links.setDisabled(link.id, disabling(), member()));
      const { disabled, ...rest } = answer.link;
      expect(disabled).toEqual(disabling());
      expect(rest).toEqual(link);
      await expect(store.links.insert(newLink({ url: 'https://example.com/else' }))).resolves.toBe(
        'alias_taken',
      );
      const usedByTaken = getFactory().takenAliasUsesId ? 1 : 0;
      const next = await insertNew(store.links, newLink({ alias: 'next' }));
      expect(next.id).toBe(link.id + 1 + usedByTaken);
      expect(next).not.toHaveProperty('disabled');
    });

    it(`lets exactly one of ${CONCURRENCY} concurrent disablings change a link, and one enabling`, async () => {
      const link = await insertNew(store.links, newLink());
      const asked = Array.from({ length: CONCURRENCY }, (_, i) =>
        disabling(`reason ${i}`, `user:user-${i}`),
      );
      const answers = (
        await Promise.all(asked.map((d) => store.links.setDisabled(link.id, d, actingOf(d))))
      ).map(outcome);
      const winners = answers.flatMap((answer, i) => (answer.changed ? [i] : []));
      expect(winners).toHaveLength(1);
      const winner = asked[winners[0] as number];
      for (const answer of answers) expect(answer.link).toEqual({ ...link, disabled: winner });
      await expect(store.links.findById(link.id)).resolves.toEqual({ ...link, disabled: winner });

      const enablings = (
        await Promise.all(asked.map(() => store.links.setDisabled(link.id, null, member())))
      ).map(outcome);
      expect(enablings.filter((answer) => answer.changed)).toHaveLength(1);
      for (const answer of enablings) expect(answer.link).toEqual(link);
    });

    const { reopen } = getFactory();
    if (reopen) {
      it('keeps a link’s state across a reopen', async () => {
        const link = await insertNew(store.links, newLink());
        const other = await insertNew(store.links, newLink({ alias: 'other' }));
        await store.links.setDisabled(link.id, disabling(), member());
        store = await reopen(store);
        opened.push(store);
        const disabled = { ...link, disabled: disabling() };
        await expect(store.links.findById(link.id)).resolves.toEqual(disabled);
        await expect(store.links.findByAlias('acme.link', 'promo')).resolves.toEqual(disabled);
        await expect(store.links.list({ organizationId: 'acme', limit: 10 })).resolves.toEqual([
          other,
          disabled,
        ]);
        await expect(
          store.links.setDisabled(link.id, disabling('again', 'user:bob'), member('bob')),
        ).resolves.toEqual({
          link: disabled,
          changed: false,
        });
        await store.links.setDisabled(link.id, null, member());
        store = await reopen(store);
        opened.push(store);
        const enabled = await store.links.findById(link.id);
        expect(enabled).toEqual(link);
        expect(enabled).not.toHaveProperty('disabled');
        await expect(store.links.findById(other.id)).resolves.toEqual(other);
        expect((await insertNew(store.links, newLink({ alias: 'after' }))).id).toBe(other.id + 1);
      });
    }
  });

  describe('link changes (update, setDisabled history, takeVisit, history)', () => {
    const AT = new Date('2026-07-01T09:00:00.000Z');
    const later = (seconds: number) => new Date(AT.getTime() + seconds * 1000);
    const EXPIRY = new Date('2027-01-02T03:04:05.678Z');
    const member = (userId = 'alice', at = new Date(AT)): LinkActing => ({
      at,
      by: `user:${userId}`,
      refuseHeld: true,
    });
    const operator = (by: 'admin' | 'rescan' = 'admin', at = new Date(AT)): LinkActing => ({
      at,
      by,
      refuseHeld: false,
    });
    /** The disabling an acting makes (its author and time). */
    const disablingBy = (acting: LinkActing, reason = 'reported'): LinkDisabling => ({
      reason,
      at: acting.at,
      by: acting.by,
    });
    const everything = (id: number) => store.links.history(id, { after: 0, limit: 1000 });
    /** The link as every read answers it (by id, by alias, listed), compared strictly. */
    async function expectStored(link: LinkRecord): Promise<void> {
      await expect(store.links.findById(link.id)).resolves.toStrictEqual(link);
      await expect(store.links.findByAlias(link.domain, link.alias)).resolves.toStrictEqual(link);
      const listed = await store.links.list({
        before: { createdAt: link.createdAt, id: link.id + 1 },
        limit: 1,
      });
      expect(listed).toStrictEqual([link]);
    }

    it('reads a link inserted without expiry or limit back without them (no undefined keys)', async () => {
      const inserted = await insertNew(store.links, newLink());
      expect(inserted).toStrictEqual({ ...newLink(), id: 1 });
      await expectStored(inserted);
      // Given as undefined by plain JavaScript: still absent on every read.
      const loose = await insertNew(store.links, {
        ...newLink({ alias: 'loose' }),
        expiresAt: undefined,
        maxVisits: undefined,
      });
      const { expiresAt: _e, maxVisits: _m, ...looseFields } = loose;
      const found = await store.links.findById(loose.id);
      expect(found).toStrictEqual(looseFields);
      for (const key of ['expiresAt', 'maxVisits', 'visits', 'disabled']) {
        expect(found).not.toHaveProperty(key);
      }
      // A change of another field, and its undoing, leave them absent too.
      const edited = outcome(await store.links.update(1, { url: 'https://e.example/' }, member()));
      expect(edited.link).toStrictEqual({ ...inserted, url: 'https://e.example/' });
      const disabled = outcome(await store.links.setDisabled(1, disablingBy(member()), member()));
      const enabled = outcome(await store.links.setDisabled(1, null, member()));
      expect(disabled.link).toStrictEqual({ ...edited.link, disabled: disablingBy(member()) });
      expect(enabled.link).toStrictEqual(edited.link);
      await expectStored(edited.link);
    });

    it('stores a new link with an expiry and a limit, its visits at 0', async () => {
      const link = newLink({ expiresAt: EXPIRY, maxVisits: 50 });
      const stored = await insertNew(store.links, link);
      expect(stored).toStrictEqual({ ...link, id: 1, visits: 0 });
      await expectStored(stored);
      // A limit of 0 is a limit too.
      const none = await insertNew(store.links, newLink({ alias: 'none', maxVisits: 0 }));
      expect(none).toStrictEqual({ ...newLink({ alias: 'none', maxVisits: 0 }), id: 2, visits: 0 });
      await expectStored(none);
      await expect(store.links.takeVisit(none.id)).resolves.toBe('exhausted');
    });

    it('updates only the given fields and records each one’s old and new value', async () => {
      const link = await insertNew(store.links, newLink({ redirectType: 302 }));
      const first = await store.links.update(link.id, { url: 'https://new.example/a' }, member());
      const afterUrl = { ...link, url: 'https://new.example/a' };
      expect(first).toStrictEqual({ link: afterUrl, changed: true });
      await expectStored(afterUrl);

      const acting = member('bob', later(60));
      const second = await store.links.update(
        link.id,
        { redirectType: 307, expiresAt: EXPIRY, maxVisits: 10 },
        acting,
      );
      const afterAll: LinkRecord = {
        ...afterUrl,
        redirectType: 307,
        expiresAt: EXPIRY,
        maxVisits: 10,
        visits: 0,
      };
      expect(second).toStrictEqual({ link: afterAll, changed: true });
      await expectStored(afterAll);

      await expect(everything(link.id)).resolves.toStrictEqual([
        {
          position: 1,
          entry: {
            kind: 'updated',
            at: AT,
            by: 'user:alice',
            changes: [{ field: 'url', from: newLink().url, to: 'https://new.example/a' }],
          },
        },
        {
          position: 2,
          entry: {
            kind: 'updated',
            at: later(60),
            by: 'user:bob',
            changes: [
              { field: 'redirect_type', from: '302', to: '307' },
              { field: 'expires_at', from: null, to: EXPIRY.toISOString() },
              { field: 'max_visits', from: null, to: '10' },
            ],
          },
        },
      ]);
    });

    it('changes nothing and adds no entry for values equal to the stored ones', async () => {
      const link = await insertNew(
        store.links,
        newLink({ redirectType: 308, expiresAt: EXPIRY, maxVisits: 5 }),
      );
      const same = {
        url: link.url,
        redirectType: 308 as const,
        expiresAt: new Date(EXPIRY),
        maxVisits: 5,
      };
      for (const edit of [{}, same, { url: link.url }, { expiresAt: new Date(EXPIRY) }]) {
        await expect(store.links.update(link.id, edit, member())).resolves.toStrictEqual({
          link,
          changed: false,
        });
      }
      const active = await insertNew(store.links, newLink({ alias: 'plain' }));
      // null where there is none is no change either.
      await expect(
        store.links.update(active.id, { expiresAt: null, maxVisits: null }, member()),
      ).resolves.toStrictEqual({ link: active, changed: false });
      await expectStored(link);
      await expectStored(active);
      await expect(everything(link.id)).resolves.toEqual([]);
      await expect(everything(active.id)).resolves.toEqual([]);
      // One changed field among equal ones: only it is recorded.
      await store.links.update(link.id, { ...same, url: 'https://other.example/' }, member());
      await expect(everything(link.id)).resolves.toStrictEqual([
        {
          position: 1,
          entry: {
            kind: 'updated',
            at: AT,
            by: 'user:alice',
            changes: [{ field: 'url', from: link.url, to: 'https://other.example/' }],
          },
        },
      ]);
    });

    it('removes the expiry and the limit (and its count) with null', async () => {
      const link = await insertNew(store.links, newLink({ expiresAt: EXPIRY, maxVisits: 3 }));
      await expect(store.links.takeVisit(link.id)).resolves.toBe('counted');
      const answer = await store.links.update(
        link.id,
        { expiresAt: null, maxVisits: null },
        member(),
      );
      const { expiresAt: _e, maxVisits: _m, visits: _v, ...unlimited } = link;
      expect(answer).toStrictEqual({ link: unlimited, changed: true });
      await expectStored(unlimited);
      await expect(everything(link.id)).resolves.toStrictEqual([
        {
          position: 1,
          entry: {
            kind: 'updated',
            at: AT,
            by: 'user:alice',
            changes: [
              { field: 'expires_at', from: EXPIRY.toISOString(), to: null },
              { field: 'max_visits', from: '3', to: null },
            ],
          },
        },
      ]);
      // Without a limit every visit is counted, and nothing is written.
      for (let i = 0; i < 5; i += 1) {
        await expect(store.links.takeVisit(link.id)).resolves.toBe('counted');
      }
      await expectStored(unlimited);
      // A limit set again counts from 0.
      const limited = outcome(await store.links.update(link.id, { maxVisits: 2 }, member()));
      expect(limited.link).toStrictEqual({ ...unlimited, maxVisits: 2, visits: 0 });
    });

    it('keeps the count when max_visits is raised (or lowered): the limit goes on from it', async () => {
      const link = await insertNew(store.links, newLink({ maxVisits: 3 }));
      for (let i = 0; i < 3; i += 1) {
        await expect(store.links.takeVisit(link.id)).resolves.toBe('counted');
      }
      await expect(store.links.takeVisit(link.id)).resolves.toBe('exhausted');
      const raised = outcome(await store.links.update(link.id, { maxVisits: 5 }, member()));
      expect(raised.link).toStrictEqual({ ...link, maxVisits: 5, visits: 3 });
      await expectStored(raised.link);
      await expect(store.links.takeVisit(link.id)).resolves.toBe('counted');
      await expect(store.links.takeVisit(link.id)).resolves.toBe('counted');
      await expect(store.links.takeVisit(link.id)).resolves.toBe('exhausted');
      const lowered = outcome(await store.links.update(link.id, { maxVisits: 1 }, member()));
      expect(lowered.link).toStrictEqual({ ...link, maxVisits: 1, visits: 5 });
      await expect(store.links.takeVisit(link.id)).resolves.toBe('exhausted');
      await expectStored(lowered.link);
    });

    it('answers held to a member’s change of a link the operator or a rescan disabled, writing nothing', async () => {
      for (const by of ['admin', 'rescan'] as const) {
        const link = await insertNew(store.links, newLink({ alias: `held-${by}` }));
        const takedown = disablingBy(operator(by), `taken down by ${by}`);
        const disabled = outcome(await store.links.setDisabled(link.id, takedown, operator(by)));
        const held = { ...link, disabled: takedown };
        expect(disabled).toStrictEqual({ link: held, changed: true });
        const entries = await everything(link.id);
        expect(entries).toHaveLength(1);

        await expect(
          store.links.update(link.id, { url: 'https://member.example/' }, member()),
        ).resolves.toBe('held');
        await expect(store.links.setDisabled(link.id, null, member())).resolves.toBe('held');
        // A member's disable of a held link is no change (it is disabled already), not held.
        await expect(
          store.links.setDisabled(link.id, disablingBy(member()), member()),
        ).resolves.toStrictEqual({ link: held, changed: false });
        await expectStored(held);
        await expect(everything(link.id)).resolves.toStrictEqual(entries);

        // The operator edits and enables it.
        const edited = outcome(
          await store.links.update(link.id, { url: 'https://operator.example/' }, operator()),
        );
        expect(edited.link).toStrictEqual({ ...held, url: 'https://operator.example/' });
        const enabled = outcome(await store.links.setDisabled(link.id, null, operator()));
        expect(enabled.link).toStrictEqual({ ...link, url: 'https://operator.example/' });
        await expect(everything(link.id)).resolves.toHaveLength(3);
      }
    });

    it('does not hold a link a member disabled: members edit and enable it', async () => {
      const link = await insertNew(store.links, newLink());
      await store.links.setDisabled(link.id, disablingBy(member('bob')), member('bob'));
      const edited = outcome(
        await store.links.update(link.id, { redirectType: 302 }, member('carol')),
      );
      expect(edited).toStrictEqual({
        link: { ...link, redirectType: 302, disabled: disablingBy(member('bob')) },
        changed: true,
      });
      const enabled = outcome(await store.links.setDisabled(link.id, null, member('carol')));
      expect(enabled).toStrictEqual({ link: { ...link, redirectType: 302 }, changed: true });
    });

    it('answers null for an id no link has, and writes nothing', async () => {
      const link = await insertNew(store.links, newLink({ maxVisits: 1 }));
      for (const id of [0, -1, 2, 1.5, Number.NaN]) {
        await expect(store.links.update(id, { url: 'https://x.example/' }, member())).resolves.toBe(
          null,
        );
        await expect(store.links.update(id, { maxVisits: 3 }, operator())).resolves.toBe(null);
        await expect(store.links.takeVisit(id)).resolves.toBe(null);
        await expect(store.links.history(id, { after: 0, limit: 10 })).resolves.toEqual([]);
      }
      await expectStored(link);
      const next = await insertNew(store.links, newLink({ alias: 'next' }));
      expect(next).toStrictEqual({ ...newLink({ alias: 'next' }), id: 2 });
      await expect(everything(next.id)).resolves.toEqual([]);
    });

    it('records a disabling with its reason and an enabling; a link already so adds no entry', async () => {
      const link = await insertNew(store.links, newLink());
      await store.links.setDisabled(link.id, null, member());
      const disabler = member('bob', later(10));
      await store.links.setDisabled(link.id, disablingBy(disabler, 'spam'), disabler);
      await store.links.setDisabled(
        link.id,
        disablingBy(member('carol', later(20)), 'again'),
        member('carol', later(20)),
      );
      await store.links.setDisabled(link.id, null, member('dave', later(30)));
      await store.links.setDisabled(link.id, null, member('erin', later(40)));
      await expect(everything(link.id)).resolves.toStrictEqual([
        {
          position: 1,
          entry: { kind: 'disabled', at: later(10), by: 'user:bob', reason: 'spam' },
        },
        { position: 2, entry: { kind: 'enabled', at: later(30), by: 'user:dave' } },
      ]);
    });

    it('pages through the history by after and limit, positions from 1, keeping every entry', async () => {
      const link = await insertNew(store.links, newLink());
      const urls = Array.from({ length: 7 }, (_, i) => `https://example.com/v${i + 1}`);
      for (const [i, url] of urls.entries()) {
        await store.links.update(link.id, { url }, member('alice', later(i)));
        if (i === 3) {
          await store.links.setDisabled(
            link.id,
            disablingBy(operator('rescan', later(i))),
            operator('rescan', later(i)),
          );
          await store.links.setDisabled(link.id, null, operator('admin', later(i)));
        }
      }
      const all = await everything(link.id);
      expect(all.map((e) => e.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(all.map((e) => e.entry.kind)).toEqual([
        'updated',
        'updated',
        'updated',
        'updated',
        'disabled',
        'enabled',
        'updated',
        'updated',
        'updated',
      ]);
      const froms = all.flatMap((e) => (e.entry.kind === 'updated' ? e.entry.changes : []));
      expect(froms.map((c) => c.to)).toEqual(urls);
      expect(froms.map((c) => c.from)).toEqual([link.url, ...urls.slice(0, -1)]);

      for (const limit of [1, 2, 4, 100]) {
        const paged: typeof all = [];
        let after = 0;
        for (let pageCount = 0; pageCount < 20; pageCount += 1) {
          const page = await store.links.history(link.id, { after, limit });
          expect(page.length).toBeLessThanOrEqual(limit);
          paged.push(...page);
          const last = page[page.length - 1];
          if (page.length < limit || !last) break;
          after = last.position;
        }
        expect([limit, paged]).toStrictEqual([limit, all]);
      }
      await expect(store.links.history(link.id, { after: 3, limit: 2 })).resolves.toStrictEqual(
        all.slice(3, 5),
      );
      await expect(store.links.history(link.id, { after: 9, limit: 5 })).resolves.toEqual([]);
      await expect(store.links.history(link.id, { after: 50, limit: 5 })).resolves.toEqual([]);

      // Later changes add entries; none before is changed or removed.
      await store.links.update(link.id, { maxVisits: 4 }, member());
      await store.links.takeVisit(link.id);
      const grown = await everything(link.id);
      expect(grown.slice(0, all.length)).toStrictEqual(all);
      expect(grown).toHaveLength(all.length + 1);
      // Another link's history is its own.
      const other = await insertNew(store.links, newLink({ alias: 'other' }));
      await store.links.update(other.id, { url: 'https://other.example/' }, member());
      await expect(everything(other.id)).resolves.toHaveLength(1);
      await expect(everything(link.id)).resolves.toStrictEqual(grown);
    });

    it('counts exactly max_visits of 200 concurrent visits', async () => {
      const link = await insertNew(store.links, newLink({ maxVisits: 50 }));
      const answers = await Promise.all(
        Array.from({ length: 200 }, () => store.links.takeVisit(link.id)),
      );
      expect(answers.filter((a) => a === 'counted')).toHaveLength(50);
      expect(answers.filter((a) => a === 'exhausted')).toHaveLength(150);
      await expectStored({ ...link, visits: 50 });
      await expect(store.links.takeVisit(link.id)).resolves.toBe('exhausted');
      // Counting is no change of the link: no history entry.
      await expect(everything(link.id)).resolves.toEqual([]);
    });

    it('counts a visit of a link without a limit and writes nothing', async () => {
      const link = await insertNew(store.links, newLink({ expiresAt: EXPIRY }));
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => store.links.takeVisit(link.id)),
      );
      expect(new Set(answers)).toEqual(new Set(['counted']));
      await expectStored(link);
      await expect(store.links.findById(link.id)).resolves.not.toHaveProperty('visits');
    });

    it('loses no visit counted while the link is edited or disabled at the same time', async () => {
      const link = await insertNew(store.links, newLink({ maxVisits: 1000 }));
      const visits = Array.from({ length: 60 }, () => store.links.takeVisit(link.id));
      const changes = [
        store.links.update(link.id, { url: 'https://during.example/' }, member()),
        store.links.setDisabled(link.id, disablingBy(member()), member()),
        store.links.update(link.id, { expiresAt: EXPIRY }, member()),
      ];
      const counted = (await Promise.all(visits)).filter((a) => a === 'counted').length;
      for (const change of await Promise.all(changes)) expect(outcome(change).changed).toBe(true);
      expect(counted).toBe(60);
      const found = await store.links.findById(link.id);
      expect(found?.visits).toBe(60);
      expect(found).toStrictEqual({
        ...link,
        url: 'https://during.example/',
        expiresAt: EXPIRY,
        disabled: disablingBy(member()),
        visits: 60,
      });
      await expect(everything(link.id)).resolves.toHaveLength(3);
    });

    it('applies every one of concurrent edits, each recorded once at its own position', async () => {
      const link = await insertNew(store.links, newLink());
      const urls = Array.from({ length: 5 }, (_, i) => `https://concurrent.example/${i}`);
      const answers = await Promise.all(
        urls.map((url, i) => store.links.update(link.id, { url }, member(`u${i}`))),
      );
      for (const answer of answers) expect(outcome(answer).changed).toBe(true);
      const entries = await everything(link.id);
      expect(entries.map((e) => e.position)).toEqual([1, 2, 3, 4, 5]);
      const changes = entries.map((e) => (e.entry.kind === 'updated' ? e.entry.changes : []));
      // A chain: each change starts from the URL the one before it left.
      let current = link.url;
      for (const [change] of changes) {
        expect(change?.from).toBe(current);
        current = change?.to ?? '';
      }
      expect(new Set(changes.map(([change]) => change?.to))).toEqual(new Set(urls));
      await expect(store.links.findById(link.id)).resolves.toStrictEqual({ ...link, url: current });
    });
  });

  describe('identities', () => {
    it('finds an organization by id and by key hash; null when unknown', async () => {
      const acme = organization();
      await store.identities.saveOrganization(acme);
      await expect(store.identities.findOrganizationById('acme')).resolves.toEqual(acme);
      await expect(store.identities.findOrganizationByKeyHash(acme.keyHash)).resolves.toEqual(acme);
      await expect(store.identities.findOrganizationById('nope')).resolves.toBeNull();
      await expect(store.identities.findOrganizationByKeyHash('b'.repeat(64))).resolves.toBeNull();
    });

    it('answers copies of identities: changing an answer changes nothing stored', async () => {
      await store.identities.saveOrganization(organization());
      await store.identities.saveGroup({ organizationId: 'acme', apiId: '1', name: 'Default' });
      await store.identities.saveUser({ id: 'alice', name: 'Alice' });
      const byId = await store.identities.findOrganizationById('acme');
      if (byId) byId.active = false;
      const byKey = await store.identities.findOrganizationByKeyHash(organization().keyHash);
      if (byKey) byKey.active = false;
      const group = await store.identities.findGroup('acme', '1');
      if (group) group.name = 'Changed';
      const user = await store.identities.findUserById('alice');
      if (user) user.name = 'Changed';
      await expect(store.identities.findOrganizationById('acme')).resolves.toEqual(organization());
      await expect(
        store.identities.findOrganizationByKeyHash(organization().keyHash),
      ).resolves.toEqual(organization());
      await expect(store.identities.findGroup('acme', '1')).resolves.toEqual({
        organizationId: 'acme',
        apiId: '1',
        name: 'Default',
      });
      await expect(store.identities.findUserById('alice')).resolves.toEqual({
        id: 'alice',
        name: 'Alice',
      });
    });

    it('upserts an organization by id: a new key hash replaces the old one', async () => {
      await store.identities.saveOrganization(organization());
      const rotated = organization({ name: 'Acme Corp', active: false, keyHash: 'c'.repeat(64) });
      await store.identities.saveOrganization(rotated);
      await store.identities.saveOrganization(rotated);
      await expect(store.identities.findOrganizationById('acme')).resolves.toEqual(rotated);
      await expect(store.identities.findOrganizationByKeyHash('a'.repeat(64))).resolves.toBeNull();
      await expect(store.identities.findOrganizationByKeyHash('c'.repeat(64))).resolves.toEqual(
        rotated,
      );
      expect(await store.identities.listLinkDomains()).toEqual(['acme.link']);
    });

    it('lists every link domain once', async () => {
      await store.identities.saveOrganization(organization());
      await store.identities.saveOrganization(organization());
      await store.identities.saveOrganization(
        organization({ id: 'beta', domain: 'beta.link:8080', keyHash: 'e'.repeat(64) }),
      );
      expect((await store.identities.listLinkDomains()).sort()).toEqual([
        'acme.link',
        'beta.link:8080',
      ]);
    });

    it('never lets two organizations share a link domain, and frees a domain left behind', async () => {
      await store.identities.saveOrganization(organization());
      const thief = organization({ id: 'thief', keyHash: 'd'.repeat(64) });
      await expect(store.identities.saveOrganization(thief)).rejects.toBeInstanceOf(
        LinkDomainTakenError,
      );
      await expect(store.identities.findOrganizationById('thief')).resolves.toBeNull();
      await expect(store.identities.findOrganizationByKeyHash('d'.repeat(64))).resolves.toBeNull();
      // acme moves to another domain: acme.link is free again.
      await store.identities.saveOrganization(organization({ domain: 'acme.example' }));
      await store.identities.saveOrganization(thief);
      await expect(store.identities.findOrganizationById('thief')).resolves.toEqual(thief);
    });

    it('never lets a second organization take a key hash another one holds', async () => {
      await store.identities.saveOrganization(organization());
      const copycat = organization({ id: 'copycat', domain: 'copycat.link' });
      await expect(store.identities.saveOrganization(copycat)).rejects.toThrow(
        /another organization/,
      );
      await expect(store.identities.saveOrganization(copycat)).rejects.toBeInstanceOf(
        OrganizationKeyTakenError,
      );
      await expect(store.identities.findOrganizationByKeyHash('a'.repeat(64))).resolves.toEqual(
        organization(),
      );
      await expect(store.identities.findOrganizationById('copycat')).resolves.toBeNull();
      expect(await store.identities.listLinkDomains()).toEqual(['acme.link']);
    });

    it(`lets exactly one of ${CONCURRENCY} concurrent organizations take one link domain`, async () => {
      const results = await settleAll(
        Array.from({ length: CONCURRENCY }, (_, i) =>
          store.identities.saveOrganization(
            organization({ id: `org-${i}`, keyHash: i.toString(16).padStart(64, '0') }),
          ),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(await store.identities.listLinkDomains()).toEqual(['acme.link']);
    });

    it('inserts an organization only when new: an existing one is left as it is', async () => {
      await store.identities.saveOrganization(organization());
      const again = organization({ domain: 'other.link', keyHash: 'f'.repeat(64) });
      await expect(store.identities.insertOrganization(again)).rejects.toBeInstanceOf(
        OrganizationExistsError,
      );
      await expect(store.identities.findOrganizationById('acme')).resolves.toEqual(organization());
      await expect(store.identities.findOrganizationByKeyHash('f'.repeat(64))).resolves.toBeNull();
      expect(await store.identities.listLinkDomains()).toEqual(['acme.link']);
      const beta = organization({ id: 'beta', domain: 'beta.link', keyHash: 'e'.repeat(64) });
      await store.identities.insertOrganization(beta);
      await expect(store.identities.findOrganizationById('beta')).resolves.toEqual(beta);
    });

    it(`lets exactly one of ${CONCURRENCY} concurrent creates of one organization id win`, async () => {
      const candidates = Array.from({ length: CONCURRENCY }, (_, i) =>
        organization({ domain: `acme-${i}.link`, keyHash: i.toString(16).padStart(64, '0') }),
      );
      const results = await settleAll(
        candidates.map((candidate) => store.identities.insertOrganization(candidate)),
      );
      const winners = candidates.filter((_, i) => results[i]?.ok);
      expect(winners).toHaveLength(1);
      for (const result of results) {
        if (!result.ok) expect(result.error).toBeInstanceOf(OrganizationExistsError);
      }
      const [winner] = winners;
      await expect(store.identities.findOrganizationById('acme')).resolves.toEqual(winner);
      expect(await store.identities.listLinkDomains()).toEqual([winner?.domain]);
      for (const candidate of candidates.filter((c) => c !== winner)) {
        await expect(
          store.identities.findOrganizationByKeyHash(candidate.keyHash),
        ).resolves.toBeNull();
      }
    });

    it('upserts groups by (organization, api id), distinct per organization', async () => {
      await store.identities.saveGroup({ organizationId: 'acme', apiId: '1', name: 'Default' });
      await store.identities.saveGroup({ organizationId: 'beta', apiId: '1', name: 'Beta' });
      await store.identities.saveGroup({ organizationId: 'acme', apiId: '1', name: 'Renamed' });
      await expect(store.identities.findGroup('acme', '1')).resolves.toEqual({
        organizationId: 'acme',
        apiId: '1',
        name: 'Renamed',
      });
      await expect(store.identities.findGroup('beta', '1')).resolves.toEqual({
        organizationId: 'beta',
        apiId: '1',
        name: 'Beta',
      });
      await expect(store.identities.findGroup('acme', '2')).resolves.toBeNull();
      await expect(store.identities.findGroup('gamma', '1')).resolves.toBeNull();
    });

    it('keeps a group and a membership apart from one whose ids hold a NUL (ids are any text)', async () => {
      await store.identities.saveGroup({
        organizationId: 'acme\u0000x',
        apiId: 'y',
        name: 'Other',
      });
      await store.identities.saveMembership('alice\u0000acme', 'beta');
      await expect(store.identities.findGroup('acme', 'x\u0000y')).resolves.toBeNull();
      await expect(store.identities.isMember('alice', 'acme\u0000beta')).resolves.toBe(false);
    });

    it('upserts users by id', async () => {
      await store.identities.saveUser({ id: 'alice', name: 'Alice' });
      await store.identities.saveUser({ id: 'alice', name: 'Alice B.' });
      await expect(store.identities.findUserById('alice')).resolves.toEqual({
        id: 'alice',
        name: 'Alice B.',
      });
      await expect(store.identities.findUserById('bob')).resolves.toBeNull();
    });

    it('maps a token hash to its user; saving the hash again never reassigns it', async () => {
      const createdAt = new Date('2026-01-02T03:04:05.006Z');
      await store.identities.saveToken({ tokenHash: 'f'.repeat(64), userId: 'alice', createdAt });
      await store.identities.saveToken({ tokenHash: 'f'.repeat(64), userId: 'alice', createdAt });
      await expect(
        store.identities.saveToken({ tokenHash: 'f'.repeat(64), userId: 'mallory', createdAt }),
      ).rejects.toBeInstanceOf(TokenTakenError);
      await store.identities.saveToken({ tokenHash: '0'.repeat(64), userId: 'bob', createdAt });
      await expect(store.identities.findUserIdByTokenHash('f'.repeat(64))).resolves.toBe('alice');
      await expect(store.identities.findUserIdByTokenHash('0'.repeat(64))).resolves.toBe('bob');
      await expect(store.identities.findUserIdByTokenHash('1'.repeat(64))).resolves.toBeNull();
    });

    it('removes one token hash, answering its user; an unknown hash writes nothing', async () => {
      const createdAt = new Date('2026-01-02T03:04:05.006Z');
      await store.identities.saveToken({ tokenHash: 'f'.repeat(64), userId: 'alice', createdAt });
      await store.identities.saveToken({ tokenHash: '0'.repeat(64), userId: 'alice', createdAt });
      await expect(store.identities.removeToken('f'.repeat(64))).resolves.toBe('alice');
      await expect(store.identities.findUserIdByTokenHash('f'.repeat(64))).resolves.toBeNull();
      await expect(store.identities.findUserIdByTokenHash('0'.repeat(64))).resolves.toBe('alice');
      await expect(store.identities.removeToken('f'.repeat(64))).resolves.toBeNull();
      await expect(store.identities.removeToken('1'.repeat(64))).resolves.toBeNull();
      await expect(store.identities.findUserIdByTokenHash('0'.repeat(64))).resolves.toBe('alice');
      // A removed hash is free again: saving it (for anyone) is a new token.
      await store.identities.saveToken({ tokenHash: 'f'.repeat(64), userId: 'bob', createdAt });
      await expect(store.identities.findUserIdByTokenHash('f'.repeat(64))).resolves.toBe('bob');
    });

    it("removes every token of one user, answering how many, and no one else's", async () => {
      const createdAt = new Date('2026-01-02T03:04:05.006Z');
      for (const [digit, userId] of [
        ['a', 'alice'],
        ['b', 'alice'],
        ['c', 'alice'],
        ['d', 'bob'],
      ] as const) {
        await store.identities.saveToken({ tokenHash: digit.repeat(64), userId, createdAt });
      }
      await expect(store.identities.removeTokensOfUser('alice')).resolves.toBe(3);
      for (const digit of ['a', 'b', 'c']) {
        await expect(store.identities.findUserIdByTokenHash(digit.repeat(64))).resolves.toBeNull();
      }
      await expect(store.identities.findUserIdByTokenHash('d'.repeat(64))).resolves.toBe('bob');
      await expect(store.identities.removeTokensOfUser('alice')).resolves.toBe(0);
      await expect(store.identities.removeTokensOfUser('nobody')).resolves.toBe(0);
    });

    it('removes a token exactly once when revoked concurrently', async () => {
      await store.identities.saveToken({
        tokenHash: 'f'.repeat(64),
        userId: 'alice',
        createdAt: new Date(),
      });
      const results = await settleAll(
        Array.from({ length: CONCURRENCY }, () => store.identities.removeToken('f'.repeat(64))),
      );
      expect(results.filter((r) => !r.ok)).toEqual([]);
      const users = results.map((r) => (r.ok ? r.value : undefined));
      expect(users.filter((u) => u === 'alice')).toHaveLength(1);
      expect(users.filter((u) => u === null)).toHaveLength(CONCURRENCY - 1);
    });

    it('records memberships per (user, organization), idempotently', async () => {
      await expect(store.identities.isMember('alice', 'acme')).resolves.toBe(false);
      await store.identities.saveMembership('alice', 'acme');
      await store.identities.saveMembership('alice', 'acme');
      await expect(store.identities.isMember('alice', 'acme')).resolves.toBe(true);
      await expect(store.identities.isMember('alice', 'beta')).resolves.toBe(false);
      await expect(store.identities.isMember('bob', 'acme')).resolves.toBe(false);
    });

    it('survives concurrent identical upserts (provisioning twice at once)', async () => {
      const times = Array.from({ length: CONCURRENCY }, (_, i) => i);
      const results = await settleAll(
        times.flatMap(() => [
          store.identities.saveOrganization(organization()),
          store.identities.saveGroup({ organizationId: 'acme', apiId: '1', name: 'Default' }),
          store.identities.saveUser({ id: 'alice', name: 'Alice' }),
          store.identities.saveMembership('alice', 'acme'),
          store.identities.saveToken({
            tokenHash: 'f'.repeat(64),
            userId: 'alice',
            createdAt: new Date(),
          }),
        ]),
      );
      expect(results.filter((r) => !r.ok)).toEqual([]);
      await expect(store.identities.findOrganizationById('acme')).resolves.toEqual(organization());
      await expect(store.identities.findGroup('acme', '1')).resolves.toMatchObject({ apiId: '1' });
      await expect(store.identities.isMember('alice', 'acme')).resolves.toBe(true);
      await expect(store.identities.findUserIdByTokenHash('f'.repeat(64))).resolves.toBe('alice');
    });
  });

  describeAdminIdentityContract(() => store);

  describe('idempotency records', () => {
    it('claims an absent key once; a second claim answers the live running record', async () => {
      await expect(store.idempotency.claim(ALICE_KEY, running('first'), T0)).resolves.toEqual({
        claimed: true,
      });
      await expect(store.idempotency.claim(ALICE_KEY, running('second'), at(1))).resolves.toEqual({
        claimed: false,
        existing: running('first'),
      });
    });

    it('completes only by the claim that owns the record, then answers the outcome', async () => {
      await store.idempotency.claim(ALICE_KEY, running('owner'), T0);
      await store.idempotency.complete(ALICE_KEY, 'intruder', completed(15, '["taken"]'));
      await expect(store.idempotency.claim(ALICE_KEY, running('x'), at(1))).resolves.toEqual({
        claimed: false,
        existing: running('owner'),
      });
      const link = '{"id":7,"short_url":"https://acme.link/a","alias":"a"}';
      await store.idempotency.complete(ALICE_KEY, 'owner', completed(0, link));
      await expect(store.idempotency.claim(ALICE_KEY, running('y'), at(2))).resolves.toEqual({
        claimed: false,
        existing: completed(0, link),
      });
      // Completed: neither a second completion nor a release by the old owner changes it.
      await store.idempotency.complete(ALICE_KEY, 'owner', completed(15, '["taken"]'));
      await store.idempotency.release(ALICE_KEY, 'owner');
      await expect(store.idempotency.claim(ALICE_KEY, running('z'), at(3))).resolves.toMatchObject({
        claimed: false,
        existing: { state: 'completed', outcome: { code: 0, body: link } },
      });
    });

    it('releases only by the owning claim; a released key is claimed again', async () => {
      await store.idempotency.claim(ALICE_KEY, running('owner'), T0);
      await store.idempotency.release(ALICE_KEY, 'intruder');
      await expect(store.idempotency.claim(ALICE_KEY, running('x'), at(1))).resolves.toMatchObject({
        claimed: false,
      });
      await store.idempotency.release(ALICE_KEY, 'owner');
      await expect(store.idempotency.claim(ALICE_KEY, running('next'), at(2))).resolves.toEqual({
        claimed: true,
      });
    });

    it('treats an expired record as absent: a lapsed lease or an outlived outcome is claimed anew', async () => {
      await store.idempotency.claim(ALICE_KEY, running('crashed', 60), T0);
      await expect(store.idempotency.claim(ALICE_KEY, running('early'), at(59))).resolves.toEqual({
        claimed: false,
        existing: running('crashed', 60),
      });
      await expect(
        store.idempotency.claim(ALICE_KEY, running('late', 120), at(60)),
      ).resolves.toEqual({ claimed: true });
      // The crashed request's owner can no longer complete or release the new claim.
      await store.idempotency.complete(ALICE_KEY, 'crashed', completed(0, '{}'));
      await store.idempotency.release(ALICE_KEY, 'crashed');
      await store.idempotency.complete(ALICE_KEY, 'late', completed(0, '{"id":1}', 100));
      await expect(
        store.idempotency.claim(ALICE_KEY, running('again'), at(99)),
      ).resolves.toMatchObject({ claimed: false, existing: { state: 'completed' } });
      await expect(store.idempotency.claim(ALICE_KEY, running('again'), at(100))).resolves.toEqual({
        claimed: true,
      });
    });

    it('keeps keys apart per user and per key (the longest key and every visible character)', async () => {
      const longest = Array.from({ length: 255 }, (_, i) => String.fromCharCode(0x21 + (i % 94)));
      const scopes: IdempotencyScope[] = [
        ALICE_KEY,
        { userId: 'bob', key: ALICE_KEY.key },
        { userId: 'alice', key: 'order-43' },
        { userId: 'alice', key: longest.join('') },
        { userId: 'alice order-42', key: 'x' },
      ];
      for (const scope of scopes) {
        await expect(store.idempotency.claim(scope, running(scope.userId), T0)).resolves.toEqual({
          claimed: true,
        });
      }
      for (const scope of scopes) {
        await expect(store.idempotency.claim(scope, running('other'), at(1))).resolves.toEqual({
          claimed: false,
          existing: running(scope.userId),
        });
      }
    });

    it(`lets exactly one of ${CONCURRENCY} concurrent claims of one key win`, async () => {
      const outcomes = await Promise.all(
        Array.from({ length: CONCURRENCY }, (_, i) =>
          store.idempotency.claim(ALICE_KEY, running(`owner-${i}`), T0),
        ),
      );
      const winners = outcomes.flatMap((o, i) => (o.claimed ? [i] : []));
      expect(winners).toHaveLength(1);
      for (const outcome of outcomes) {
        if (!outcome.claimed) expect(outcome.existing).toEqual(running(`owner-${winners[0]}`));
      }
    });

    it('renews only the owning claim’s lease, and never shortens it', async () => {
      await store.idempotency.claim(ALICE_KEY, running('owner', 60), T0);
      await expect(store.idempotency.renew(ALICE_KEY, 'intruder', at(500))).resolves.toBe(false);
      await expect(store.idempotency.renew(ALICE_KEY, 'owner', at(120))).resolves.toBe(true);
      await expect(store.idempotency.renew(ALICE_KEY, 'owner', at(90))).resolves.toBe(true);
      // Renewed to 120 s: live at 119 s, free at 120 s.
      await expect(store.idempotency.claim(ALICE_KEY, running('x'), at(119))).resolves.toEqual({
        claimed: false,
        existing: running('owner', 120),
      });
      await expect(
        store.idempotency.claim(ALICE_KEY, running('next', 300), at(120)),
      ).resolves.toEqual({ claimed: true });
      await expect(store.idempotency.renew(ALICE_KEY, 'owner', at(500))).resolves.toBe(false);
      await store.idempotency.complete(ALICE_KEY, 'next', completed(0, '{}', 400));
      await expect(store.idempotency.renew(ALICE_KEY, 'next', at(500))).resolves.toBe(false);
    });

    describe('a keyed link insert (insertCompleting)', () => {
      const answerFor = (link: { id: number }) => completed(0, JSON.stringify({ id: link.id }));
      const completion = (owner: string) => ({ scope: ALICE_KEY, owner, completed: answerFor });

      it('writes the link and completes the owner’s running record', async () => {
        await store.idempotency.claim(ALICE_KEY, running('owner'), T0);
        const stored = await store.links.insertCompleting(newLink(), completion('owner'));
        expect(stored).toMatchObject({ ...newLink(), id: expect.any(Number) as number });
        await expect(store.idempotency.claim(ALICE_KEY, running('retry'), at(1))).resolves.toEqual({
          claimed: false,
          existing: answerFor(stored as { id: number }),
        });
      });

      it('writes nothing once another request has taken the claim over (claim_lost)', async () => {
        await store.idempotency.claim(ALICE_KEY, running('paused', 60), T0);
        await store.idempotency.claim(ALICE_KEY, running('retry', 120), at(61));
        await expect(store.links.insertCompleting(newLink(), completion('paused'))).resolves.toBe(
          'claim_lost',
        );
        await expect(
          store.links.findByAlias(newLink().domain, newLink().alias),
        ).resolves.toBeNull();
        await expect(store.idempotency.claim(ALICE_KEY, running('x'), at(62))).resolves.toEqual({
          claimed: false,
          existing: running('retry', 120),
        });
        // The retry, which holds the claim, inserts the alias.
        await expect(
          store.links.insertCompleting(newLink(), completion('retry')),
        ).resolves.toMatchObject({ alias: newLink().alias });
      });

      it('writes nothing when the claim was released meanwhile (claim_lost)', async () => {
        await store.idempotency.claim(ALICE_KEY, running('owner'), T0);
        await store.idempotency.release(ALICE_KEY, 'owner');
        await expect(store.links.insertCompleting(newLink(), completion('owner'))).resolves.toBe(
          'claim_lost',
        );
        await expect(
          store.links.findByAlias(newLink().domain, newLink().alias),
        ).resolves.toBeNull();
      });
    });

    it('replays a create through the core on this store', async () => {
      const f = await createTestCore({ store });
      const caller = () =>
        f.core.createCaller({ authorization: `Bearer ${f.token}`, idempotencyKey: 'through' });
      const first = await caller().links.create(f.body() as never);
      await expect(caller().links.create(f.body() as never)).resolves.toEqual(first);
      await expect(
        caller().links.create(f.body({ url: 'https://example.com/else' }) as never),
      ).rejects.toMatchObject({ reason: 'IDEMPOTENCY_KEY_REUSED' });
      // Neither the replay nor the refused request stored a link or used an id.
      expect((await insertNew(store.links, newLink({ alias: 'after' }))).id).toBe(first.id + 1);
    });
  });

  describe('health', () => {
    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });

  describe('through the core', () => {
    it('creates a link end to end and resolves it', async () => {
      const f = await createTestCore({ store });
      const created = await f.caller().links.create(f.body() as never);
      expect(created).toMatchObject({ id: 1, url: f.body().url });
      expect(created.short_url).toBe(`https://acme.link/${created.alias}`);
      await expect(
        f.core.createCaller().links.resolve({ domain: 'ACME.link', alias: created.alias }),
      ).resolves.toEqual({
        ...created,
        url_group_id: '1',
        state: 'active',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      });
      await expect(f.core.ready()).resolves.toBeUndefined();
    });

    it('reads, lists and governs links through the core on this store', async () => {
      const f = await createTestCore({ store });
      const key = { organization_key: f.organizationKey };
      const created = [];
      for (const alias of ['one', 'two', 'three']) {
        created.push(await f.caller().links.create(f.body({ alias }) as never));
      }
      const first = await f.caller().links.list({ ...key, page_size: 2 });
      expect(first.links.map((link) => link.alias)).toEqual(['three', 'two']);
      const second = await f.caller().links.list({ ...key, page_token: first.next_page_token });
      expect(second).toEqual({
        links: [expect.objectContaining({ alias: 'one' })],
        next_page_token: '',
      });
      const id = created[0]?.id ?? 0;
      await expect(f.caller().links.get({ ...key, id })).resolves.toMatchObject({
        alias: 'one',
        state: 'active',
      });
      await expect(
        f.caller().links.disable({ ...key, id, reason: 'reported' }),
      ).resolves.toMatchObject({ state: 'disabled', disabled_reason: 'reported' });
      const follow = f.core.createCaller().links.resolve({ domain: 'acme.link', alias: 'one' });
      await expect(follow).rejects.toMatchObject({ reason: 'LINK_DISABLED' });
      await expect(f.caller().links.enable({ ...key, id })).resolves.toMatchObject({
        state: 'active',
      });
      await expect(
        f.core.createCaller().links.resolve({ domain: 'acme.link', alias: 'one' }),
      ).resolves.toMatchObject({ id, state: 'active' });
    });

    it('answers code 15 for a custom alias already taken on the domain', async () => {
      const f = await createTestCore({ store });
      await f.caller().links.create(f.body({ alias: 'spring' }) as never);
      const second = f.caller().links.create(f.body({ alias: 'spring' }) as never);
      await expect(second).rejects.toBeInstanceOf(ShortlinkError);
      await expect(second).rejects.toMatchObject({ reason: 'ALIAS_TAKEN' });
      const third = await f.caller().links.create(f.body({ alias: 'Spring' }) as never);
      expect(third.alias).toBe('Spring');
    });

    it('retries a generated alias that collides with a stored one', async () => {
      const f = await createTestCore({ store, aliasGenerator: scriptedAliases(['taken', 'free']) });
      await f.caller().links.create(f.body({ alias: 'taken' }) as never);
      const created = await f.caller().links.create(f.body() as never);
      expect(created.alias).toBe('free');
    });

    it('lets one of many concurrent creates with one custom alias win', async () => {
      const f = await createTestCore({ store });
      const results = await settleAll(
        Array.from({ length: 10 }, (_, i) =>
          f
            .caller()
            .links.create(f.body({ alias: 'race', url: `https://e.example/${i}` }) as never),
        ),
      );
      const winners = results.filter((r) => r.ok);
      expect(winners).toHaveLength(1);
      const losers = results.filter((r) => !r.ok).map((r) => (r.ok ? null : r.error));
      expect(losers.every((e) => e instanceof ShortlinkError && e.reason === 'ALIAS_TAKEN')).toBe(
        true,
      );
      const stored = await store.links.findByAlias('acme.link', 'race');
      expect(winners[0]?.ok && winners[0].value).toMatchObject({
        id: stored?.id,
        url: stored?.url,
      });
    });
  });
}
