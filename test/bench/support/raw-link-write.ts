import { hash, randomUUID } from 'node:crypto';
import type { RootDatabase } from 'lmdb';
import { LINK_ID_INDEX, META_KEYS, type LinkKey } from '../../../core/adapters/lmdb/databases';
import { toStoredLink } from '../../../core/adapters/lmdb/link-tuple';
import { successOutcome } from '../../../core/idempotency/recorded-outcome';
import { toShortLink } from '../../../core/links/short-link';
import type { LinkRecord } from '../../../core/ports/link-store';
import { BENCH_DOMAIN, CREATE_BODY } from './credentials';

/**
 * lmdb-js alone, no shortlink code on the write path: in an environment opened with the
 * product's settings (openEnvironment), one write transaction per call that does what a link
 * insert does (check the key, take the next id from the counter in `meta`, put the stored link at
 * a random alias and its three index entries), with or without a recorded answer (a fingerprint
 * and the created link's JSON) at another random key in a second database. Answers each call's
 * transaction promise.
 */
export function rawLinkWriter(root: RootDatabase) {
  const links = root.openDB<unknown, LinkKey>({ name: 'links' });
  const meta = root.openDB<unknown, string>({ name: 'meta' });
  const byId = root.openDB<unknown, number>({ name: 'links_by_id' });
  const byOrganization = root.openDB<number, string>({
    name: 'links_by_organization',
    ...LINK_ID_INDEX,
  });
  const byGroup = root.openDB<number, [string, string]>({
    name: 'links_by_group',
    ...LINK_ID_INDEX,
  });
  const records = root.openDB<unknown, [string, string]>({ name: 'records' });
  return (withRecord: boolean) => () => {
    const key = randomUUID();
    const alias = key.slice(0, 8);
    return links.transaction(() => {
      if (links.doesExist([BENCH_DOMAIN, alias])) return;
      const last = meta.get(META_KEYS.linkIds);
      const link: LinkRecord = {
        id: (typeof last === 'number' ? last : 0) + 1,
        domain: BENCH_DOMAIN,
        alias,
        url: CREATE_BODY.url,
        redirectType: 301,
        scheme: 'https',
        organizationId: 'bench',
        groupApiId: '1',
        userId: 'bench',
        createdAt: new Date(),
      };
      void meta.put(META_KEYS.linkIds, link.id);
      void links.put([BENCH_DOMAIN, alias], toStoredLink(link));
      void byId.put(link.id, [BENCH_DOMAIN, alias]);
      void byOrganization.put(link.organizationId, link.id);
      void byGroup.put([link.organizationId, link.groupApiId], link.id);
      if (withRecord) {
        const fingerprint = hash('sha256', key, 'base64url');
        const { code, body } = successOutcome(toShortLink(link));
        void records.put([key, 'bench'], ['completed', fingerprint, Date.now(), code, body]);
      }
    });
  };
}
