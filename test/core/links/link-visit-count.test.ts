import type { Store } from '../../../core';
import { visitDayOf } from '../../../core/ports/visit-store';
import { createTestCore, type CoreFixture } from '../../support/core-fixture';
import { embeddedStores } from '../../support/embedded-stores';

const T0 = Date.parse('2027-03-10T08:00:00.000Z');
const TODAY = visitDayOf(new Date(T0));

describe.each(embeddedStores('link-visit-count'))(
  'visit_count in links.get and links.list on the %s store',
  (_name, open) => {
    let f: CoreFixture<Store>;

    beforeEach(async () => {
      f = await createTestCore({ store: await open(), clock: { now: () => new Date(T0) } });
    });

    const key = () => ({ organization_key: f.organizationKey });
    const add = (
      seq: number,
      counts: { linkId: number; day: number; humans: number; bots: number }[],
    ) => f.store.visits?.add({ process: 'test', seq, counts });
    const create = (alias: string, extra: Record<string, unknown> = {}) =>
      f.caller().links.create(f.body({ alias, ...extra }) as never);

    it('answers every stored visit of the link, humans and bots, every day; 0 for one never visited', async () => {
      const seen = await create('seen');
      const quiet = await create('quiet');
      await add(1, [
        { linkId: seen.id, day: TODAY, humans: 3, bots: 1 },
        { linkId: seen.id, day: TODAY - 400, humans: 2, bots: 0 },
      ]);
      await add(1, [{ linkId: seen.id, day: TODAY, humans: 50, bots: 50 }]); // repeated: ignored
      await add(2, [{ linkId: seen.id, day: TODAY - 1, humans: 0, bots: 4 }]);
      expect(await f.caller().links.get({ ...key(), id: seen.id })).toMatchObject({
        id: seen.id,
        visit_count: 10,
      });
      expect(await f.caller().links.get({ ...key(), alias: 'quiet' })).toMatchObject({
        id: quiet.id,
        visit_count: 0,
      });
    });

    it('is not the max_visits counter: a limited link shows its visit total, not its redirects taken', async () => {
      const limited = await create('limited', { max_visits: 5 });
      // Two redirects counted against the limit (the link's own counter), none in the visit store.
      await f.store.links.takeVisit(limited.id);
      await f.store.links.takeVisit(limited.id);
      expect((await f.store.links.findById(limited.id))?.visits).toBe(2);
      const view = await f.caller().links.get({ ...key(), id: limited.id });
      expect([view.max_visits, view.visit_count]).toEqual([5, 0]);
      await add(1, [{ linkId: limited.id, day: TODAY, humans: 1, bots: 0 }]);
      expect((await f.caller().links.get({ ...key(), id: limited.id })).visit_count).toBe(1);
    });

    it('lists each link with its total, reading the visit store once per page, for that page’s links only', async () => {
      const links = [];
      for (const alias of ['l1', 'l2', 'l3', 'l4', 'l5']) links.push(await create(alias));
      await add(
        1,
        links.map((link, index) => ({ linkId: link.id, day: TODAY, humans: index, bots: 10 })),
      );
      const totals = jest.spyOn(f.store.visits!, 'totals');
      const first = await f.caller().links.list({ ...key(), page_size: 3 });
      expect(first.links.map((link) => [link.alias, link.visit_count])).toEqual([
        ['l5', 14],
        ['l4', 13],
        ['l3', 12],
      ]);
      expect(totals.mock.calls).toEqual([
        [
          links
            .slice(2)
            .map((link) => link.id)
            .reverse(),
        ],
      ]);
      const second = await f.caller().links.list({
        ...key(),
        page_size: 3,
        page_token: first.next_page_token,
      });
      expect(second.links.map((link) => [link.alias, link.visit_count])).toEqual([
        ['l2', 11],
        ['l1', 10],
      ]);
      expect(totals).toHaveBeenCalledTimes(2);
      totals.mockRestore();
    });
  },
);
