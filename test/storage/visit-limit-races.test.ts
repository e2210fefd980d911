import {
  createCore,
  Provisioner,
  systemClock,
  withCaches,
  type ErrorReason,
  type Store,
} from '../../core';
import { embeddedStores } from '../support/embedded-stores';
import { insertNew, newLink } from './fixtures';

/**
 * max_visits is exact under concurrency on each embedded store: racing visits are counted by the
 * store's atomic takeVisit, never by a read and a later write. Through the core as the runtime
 * builds it (the store behind its caches), so a follow's cached link cannot let a visit through.
 */

const FOLLOWS = 200;
const LIMIT = 50;

describe.each(embeddedStores('visit-limit-races'))(
  '%s: max_visits under racing follows',
  (_name, open) => {
    async function linkWithLimit(store: Store) {
      await new Provisioner(store, systemClock).saveOrganization({
        id: 'acme',
        domain: 'acme.link',
      });
      return insertNew(store.links, newLink({ alias: 'fifty', maxVisits: LIMIT }));
    }

    it(`${FOLLOWS} concurrent visits of a link with max_visits ${LIMIT}: exactly ${LIMIT} redirects, the rest code 30`, async () => {
      const backend = await open();
      const link = await linkWithLimit(backend);
      const core = createCore({
        store: withCaches(backend, { linkCacheSize: 100, identityTtlSeconds: 10 }),
      });
      // Every follow has found the link (a cached one, mostly) before the first visit is counted.
      const outcomes = await Promise.all(
        Array.from({ length: FOLLOWS }, () =>
          core
            .createCaller()
            .links.resolve({ domain: 'acme.link', alias: 'fifty', visit: true })
            .then(
              (resolved): ErrorReason | 'redirect' =>
                resolved.id === link.id ? 'redirect' : 'INTERNAL',
              (error: { reason: ErrorReason }) => error.reason,
            ),
        ),
      );
      const tally = new Map<string, number>();
      for (const outcome of outcomes) tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
      expect(Object.fromEntries(tally)).toEqual({
        redirect: LIMIT,
        LINK_EXPIRED: FOLLOWS - LIMIT,
      });
      expect((await backend.links.findById(link.id))?.visits).toBe(LIMIT);
    });

    it(`${FOLLOWS} concurrent takeVisit calls: exactly ${LIMIT} counted`, async () => {
      const store = await open();
      const link = await linkWithLimit(store);
      const answers = await Promise.all(
        Array.from({ length: FOLLOWS }, () => store.links.takeVisit(link.id)),
      );
      expect(answers.filter((answer) => answer === 'counted')).toHaveLength(LIMIT);
      expect(answers.filter((answer) => answer === 'exhausted')).toHaveLength(FOLLOWS - LIMIT);
      expect((await store.links.findById(link.id))?.visits).toBe(LIMIT);
    });
  },
);
