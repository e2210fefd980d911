import { createCore, systemClock, type Store } from '../../../core';
import { operatorActing } from '../../../core/links/link-actor';
import { ADMIN_ACTOR, type LinkStore } from '../../../core/ports/link-store';
import { createTestCore, type CoreFixture } from '../../support/core-fixture';
import { embeddedStores } from '../../support/embedded-stores';
import { failureOf } from '../../support/failures';

describe.each(embeddedStores('link-history'))('links.history on the %s store', (_name, open) => {
  let f: CoreFixture<Store>;

  beforeEach(async () => {
    f = await createTestCore({ store: await open() });
  });

  const key = () => ({ organization_key: f.organizationKey });

  it('shows created, each edit with old and new values, disables with their reason and enables; an enable erases nothing', async () => {
    const link = await f.caller().links.create(f.body({ alias: 'hist' }) as never);
    const ref = { ...key(), id: link.id };
    await f.caller().links.update({ ...ref, url: 'https://example.org/two', max_visits: 5 });
    await f.caller().links.update({ ...ref, max_visits: null });
    await f.caller().links.disable({ ...ref, reason: 'paused for the campaign' });
    await f.caller().links.enable(ref);
    const acting = operatorActing(systemClock, ADMIN_ACTOR);
    await f.store.links.setDisabled(
      link.id,
      { reason: 'phishing kit, ticket 881', at: acting.at, by: acting.by },
      acting,
    );
    await f.store.links.setDisabled(link.id, null, operatorActing(systemClock, ADMIN_ACTOR));
    // An edit that changes nothing is no entry.
    await f.caller().links.update({ ...ref, url: 'https://example.org/two' });

    const page = await f.caller().links.history({ ...key(), alias: 'hist' });
    expect(page.next_page_token).toBe('');
    expect(page.entries.map(({ kind, by }) => `${kind} ${by}`)).toEqual([
      'created user:alice',
      'updated user:alice',
      'updated user:alice',
      'disabled user:alice',
      'enabled user:alice',
      'disabled admin',
      'enabled admin',
    ]);
    const [created, first, second, paused, , takedown] = page.entries;
    const { created_at } = await f.caller().links.get(ref);
    expect(created).toEqual({ kind: 'created', at: created_at, by: 'user:alice' });
    expect(first?.changes).toEqual([
      { field: 'url', from: link.url, to: 'https://example.org/two' },
      { field: 'max_visits', from: null, to: '5' },
    ]);
    expect(second?.changes).toEqual([{ field: 'max_visits', from: '5', to: null }]);
    expect(paused?.reason).toBe('paused for the campaign');
    expect(takedown?.reason).toBe('phishing kit, ticket 881');
    for (const entry of page.entries) expect(Date.parse(entry.at)).not.toBeNaN();
    const times = page.entries.map((entry) => Date.parse(entry.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('pages oldest first with an opaque token bound to the link, repeating and missing nothing', async () => {
    const link = await f.caller().links.create(f.body() as never);
    const ref = { ...key(), id: link.id };
    for (let visits = 1; visits <= 6; visits += 1) {
      await f.caller().links.update({ ...ref, max_visits: visits });
    }
    const seen: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const page = await f.caller().links.history({ ...ref, page_size: 2, page_token: token });
      expect(page.entries.length).toBeLessThanOrEqual(2);
      seen.push(...page.entries.map((entry) => `${entry.kind}:${entry.changes?.[0]?.to ?? ''}`));
      token = page.next_page_token;
      pages += 1;
    } while (token !== '');
    expect(pages).toBe(4);
    expect(seen).toEqual(['created:', ...[1, 2, 3, 4, 5, 6].map((n) => `updated:${n}`)]);

    const whole = await f.caller().links.history({ ...ref, page_size: 0 });
    expect(whole.entries).toHaveLength(7);

    const other = await f.caller().links.create(f.body() as never);
    const first = await f.caller().links.history({ ...ref, page_size: 1 });
    const foreign = await failureOf(
      f.caller().links.history({ ...key(), id: other.id, page_token: first.next_page_token }),
    );
    expect(foreign.reason).toBe('ARGUMENT_INVALID');
    // A listing's token is no history's either.
    const listing = await f.caller().links.list({ ...key(), page_size: 1 });
    expect(
      (await failureOf(f.caller().links.history({ ...ref, page_token: listing.next_page_token })))
        .reason,
    ).toBe('ARGUMENT_INVALID');
  });

  it('refuses 29 for a bad page size, token or reference, every problem reported; 24 for another organization', async () => {
    const bad = await failureOf(
      f.caller().links.history({ ...key(), page_size: 101, page_token: 7 }),
    );
    expect(bad.reason).toBe('ARGUMENT_INVALID');
    expect(bad.messages).toEqual([
      'Give either id or alias (one of them).',
      'page_size must be a whole number from 1 to 100.',
      'page_token must be a string.',
    ]);
    const other = await f
      .caller()
      .links.create(f.body({ organization_key: f.otherOrganizationKey }) as never);
    expect((await failureOf(f.caller().links.history({ ...key(), id: other.id }))).reason).toBe(
      'NOT_FOUND',
    );
  });
});

describe('links.history of a link disabled before histories were kept', () => {
  it('shows the disable, from the link, after created', async () => {
    const f = await createTestCore();
    const link = await f.caller().links.create(f.body() as never);
    const acting = operatorActing(systemClock, ADMIN_ACTOR);
    await f.store.links.setDisabled(
      link.id,
      { reason: 'old takedown', at: acting.at, by: 'admin' },
      acting,
    );
    // The store as one written before histories: the link disabled, no entry kept.
    const links: LinkStore = Object.create(f.store.links) as LinkStore;
    links.history = () => Promise.resolve([]);
    const store = Object.assign(Object.create(f.store) as Store, { links });
    const core = createCore({ store });
    const g = { caller: () => core.createCaller({ authorization: `Bearer ${f.token}` }) };
    const key = { organization_key: f.organizationKey, id: link.id };
    const page = await g.caller().links.history(key);
    expect(page.entries).toEqual([
      expect.objectContaining({ kind: 'created' }),
      { kind: 'disabled', at: acting.at.toISOString(), by: 'admin', reason: 'old takedown' },
    ]);
    // Paged one by one, it is still there, once.
    const one = await g.caller().links.history({ ...key, page_size: 1 });
    expect(one.entries.map((entry) => entry.kind)).toEqual(['created']);
    const two = await g
      .caller()
      .links.history({ ...key, page_size: 1, page_token: one.next_page_token });
    expect(two.entries.map((entry) => entry.kind)).toEqual(['disabled']);
    expect(two.next_page_token).toBe('');
    // On the real store, the recorded disable is shown once, not twice.
    const real = await f
      .caller()
      .links.history({ organization_key: f.organizationKey, id: link.id });
    expect(real.entries.map((entry) => entry.kind)).toEqual(['created', 'disabled']);
  });
});
