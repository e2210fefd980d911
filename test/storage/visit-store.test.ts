import type { VisitStore } from '../../core';
import { embeddedStores } from '../support/embedded-stores';

/** The visit store every embedded store has (MongoDB's: test/mongodb/visit-store.test.ts). */
async function visitsOf(open: () => Promise<{ visits?: VisitStore }>): Promise<VisitStore> {
  const { visits } = await open();
  if (!visits) throw new Error('the store keeps no visits');
  return visits;
}

describe.each(embeddedStores('visits'))('visit store on %s', (_name, open) => {
  it('adds each day of each link, and the totals', async () => {
    const visits = await visitsOf(open);
    await visits.add({
      process: 'p',
      seq: 1,
      counts: [
        { linkId: 1, day: 20_000, humans: 3, bots: 1 },
        { linkId: 1, day: 20_002, humans: 0, bots: 2 },
        { linkId: 2, day: 20_000, humans: 5, bots: 0 },
      ],
    });
    await visits.add({
      process: 'p',
      seq: 2,
      counts: [{ linkId: 1, day: 20_000, humans: 1, bots: 0 }],
    });
    expect(await visits.read(1, 20_000, 20_002)).toEqual([
      { linkId: 1, day: 20_000, humans: 4, bots: 1 },
      { linkId: 1, day: 20_002, humans: 0, bots: 2 },
    ]);
    // Both ends included, nothing outside the range, nothing of another link.
    expect(await visits.read(1, 20_001, 20_002)).toEqual([
      { linkId: 1, day: 20_002, humans: 0, bots: 2 },
    ]);
    expect(await visits.read(1, 19_000, 19_999)).toEqual([]);
    expect(await visits.totals([1, 2, 3])).toEqual(
      new Map([
        [1, { humans: 4, bots: 3 }],
        [2, { humans: 5, bots: 0 }],
        [3, { humans: 0, bots: 0 }],
      ]),
    );
  });

  it('applies a batch sent again (same process and seq) once', async () => {
    const visits = await visitsOf(open);
    const batch = { process: 'a', seq: 1, counts: [{ linkId: 7, day: 1, humans: 2, bots: 1 }] };
    expect(await visits.add(batch)).toBe('added');
    expect(await visits.add(batch)).toBe('repeated');
    // Another process's first batch is its own.
    expect(await visits.add({ ...batch, process: 'b' })).toBe('added');
    expect(await visits.totals([7])).toEqual(new Map([[7, { humans: 4, bots: 2 }]]));
    expect(await visits.read(7, 0, 2)).toEqual([{ linkId: 7, day: 1, humans: 4, bots: 2 }]);
  });
});
