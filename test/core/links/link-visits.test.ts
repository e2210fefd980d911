import type { Store } from '../../../core';
import { visitDayOf } from '../../../core/ports/visit-store';
import { createTestCore, type CoreFixture } from '../../support/core-fixture';
import { embeddedStores } from '../../support/embedded-stores';
import { failureOf } from '../../support/failures';

const T0 = Date.parse('2027-03-10T08:00:00.000Z');
const TODAY = visitDayOf(new Date(T0));

describe.each(embeddedStores('link-visits'))('links.visits on the %s store', (_name, open) => {
  let f: CoreFixture<Store>;

  beforeEach(async () => {
    f = await createTestCore({ store: await open(), clock: { now: () => new Date(T0) } });
  });

  const key = () => ({ organization_key: f.organizationKey });
  const add = (linkId: number, day: number, humans: number, bots: number, seq: number) =>
    f.store.visits?.add({ process: 'test', seq, counts: [{ linkId, day, humans, bots }] });

  it('answers the totals and every day of the range, zeros included, oldest first', async () => {
    const link = await f.caller().links.create(f.body({ alias: 'seen' }) as never);
    await add(link.id, TODAY, 3, 1, 1);
    await add(link.id, TODAY - 2, 0, 5, 2);
    await add(link.id, TODAY - 40, 7, 0, 3); // outside the default 30 days, inside the totals
    const visits = await f.caller().links.visits({ ...key(), alias: 'seen', days: 3 });
    expect(visits).toEqual({
      link_id: link.id,
      totals: { visits: 16, humans: 10, bots: 6 },
      days: [
        { day: '2027-03-08', visits: 5, humans: 0, bots: 5 },
        { day: '2027-03-09', visits: 0, humans: 0, bots: 0 },
        { day: '2027-03-10', visits: 4, humans: 3, bots: 1 },
      ],
    });
    const byDefault = await f.caller().links.visits({ ...key(), id: link.id });
    expect(byDefault.days).toHaveLength(30);
    expect(byDefault.days[0]?.day).toBe('2027-02-09');
    expect(byDefault.days.reduce((sum, day) => sum + day.visits, 0)).toBe(9);
  });

  it('refuses another organization’s link (24) and a range past 400 days (29, ARGUMENT_INVALID)', async () => {
    const other = await f
      .caller()
      .links.create(f.body({ organization_key: f.otherOrganizationKey, alias: 'theirs' }) as never);
    expect((await failureOf(f.caller().links.visits({ ...key(), id: other.id }))).code).toBe(24);
    const link = await f.caller().links.create(f.body({ alias: 'mine' }) as never);
    const refused = await failureOf(f.caller().links.visits({ ...key(), id: link.id, days: 401 }));
    expect([refused.code, refused.message]).toEqual([
      29,
      'days must be a whole number from 1 to 400.',
    ]);
  });
});
