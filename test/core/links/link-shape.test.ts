import { join } from 'node:path';
import type { WithId } from 'mongodb';
import { createMemoryStore, type LinkView, type Store } from '../../../core';
import { createLmdbStore } from '../../../core/adapters/lmdb';
import { fromStoredLink, toStoredLink } from '../../../core/adapters/lmdb/link-tuple';
import type { LinkDocument } from '../../../core/adapters/mongodb/documents';
import { toLinkFields, toLinkRecord } from '../../../core/adapters/mongodb/link-document';
import { toLinkView } from '../../../core/links/link-view';
import type { EveryField, LinkRecord } from '../../../core/ports/link-store';
import { LinkState, type ShortLink } from '../../../gateway-grpc/generated/shortlink/v1/shortlink';
import { toShortLinkMessage } from '../../../gateway-grpc/messages';
import { tempDirs } from '../../support/temp-dirs';

/**
 * The link is declared once, as LinkRecord (core/ports/link-store.ts). The places that write
 * every field of it again, each checked here with a link that has every field:
 *
 * - the memory store's copy (copyOf in core/adapters/memory/memory-link-store.ts), through its port;
 * - LMDB's tuple (toStoredLink, fromStoredLink in core/adapters/lmdb/link-tuple.ts), directly and
 *   through the store's port;
 * - MongoDB's document (toLinkFields, toLinkRecord in core/adapters/mongodb/link-document.ts; no
 *   server here, so the mapping only);
 * - the view (toLinkView in core/links/link-view.ts) and the gRPC message (MESSAGE_FIELDS,
 *   toShortLinkMessage in gateway-grpc/messages.ts).
 *
 * Each is written as an object of EveryField<...>, so a field added to LinkRecord and forgotten
 * there fails `npm run typecheck`; the type-level checks below pin what EveryField demands. The
 * runtime checks fail when a place compiles but drops a field's value.
 */

/** Every field of LinkRecord, once: the compiler checks the list against the interface. */
const LINK_FIELDS = [
  'id',
  'domain',
  'alias',
  'url',
  'redirectType',
  'scheme',
  'organizationId',
  'groupApiId',
  'userId',
  'createdAt',
  'disabled',
  'expiresAt',
  'maxVisits',
  'visits',
] as const satisfies ReadonlyArray<keyof LinkRecord>;
// A field of LinkRecord missing from the list fails here.
const everyFieldListed: [Exclude<keyof LinkRecord, (typeof LINK_FIELDS)[number]>] extends [never]
  ? true
  : false = true;

/** Every field of LinkView, once, checked the same way. */
const VIEW_FIELDS = [
  'id',
  'short_url',
  'url',
  'domain',
  'alias',
  'redirect_type',
  'url_group_id',
  'state',
  'created_at',
  'disabled_reason',
  'disabled_at',
  'disabled_by',
  'expires_at',
  'max_visits',
  'visit_count',
] as const satisfies ReadonlyArray<keyof LinkView>;
const everyViewFieldListed: [Exclude<keyof LinkView, (typeof VIEW_FIELDS)[number]>] extends [never]
  ? true
  : false = true;

/** A link with every field present, optional ones included (Required: none can be left out). */
const FULL: Required<LinkRecord> = {
  id: 1,
  domain: 'acme.link',
  alias: 'every-field',
  url: 'https://example.com/every?field=1',
  redirectType: 307,
  scheme: 'https',
  organizationId: 'acme',
  groupApiId: '42',
  userId: 'alice',
  createdAt: new Date('2026-05-04T10:11:12.345Z'),
  disabled: { reason: 'reported', at: new Date('2026-06-07T08:09:10.111Z'), by: 'user:alice' },
  expiresAt: new Date('2027-01-02T03:04:05.678Z'),
  maxVisits: 5,
  visits: 1,
};

/** `record` is FULL, every field present and nothing else (no undefined key either). */
function expectEveryField(record: unknown): void {
  expect(Object.keys(record as object).sort()).toEqual([...LINK_FIELDS].sort());
  expect(record).toStrictEqual(FULL);
}

describe('the declared link shape: types', () => {
  it('lists every field of LinkRecord and LinkView', () => {
    expect(everyFieldListed).toBe(true);
    expect(everyViewFieldListed).toBe(true);
    expect(Object.keys(FULL).sort()).toEqual([...LINK_FIELDS].sort());
  });

  it('EveryField demands every field, its optional ones too (checked by tsc)', () => {
    const complete: EveryField<LinkRecord> = { ...FULL, disabled: undefined, visits: undefined };
    // @ts-expect-error visits, optional in LinkRecord, cannot be left out of an EveryField
    const withoutVisits: EveryField<LinkRecord> = {
      id: 1,
      domain: 'acme.link',
      alias: 'a',
      url: 'https://example.com/',
      redirectType: 301,
      scheme: 'https',
      organizationId: 'acme',
      groupApiId: '1',
      userId: 'alice',
      createdAt: new Date(),
      disabled: undefined,
      expiresAt: undefined,
      maxVisits: undefined,
    };
    const { url: _url, ...noUrl } = complete;
    // @ts-expect-error neither can a required one (url)
    const withoutUrl: EveryField<LinkRecord> = noUrl;
    expect([complete, withoutVisits, withoutUrl]).toHaveLength(3);
  });

  it('the check below fails for a record that lost any one field', () => {
    for (const field of LINK_FIELDS) {
      const { [field]: _dropped, ...rest } = FULL;
      expect(() => expectEveryField(rest)).toThrow();
      expect(() => expectEveryField({ ...FULL, [field]: undefined })).toThrow();
    }
    expectEveryField(structuredCloneOf(FULL));
  });
});

/** A deep copy with Dates of this realm (structuredClone makes the host's). */
function structuredCloneOf(link: Required<LinkRecord>): Required<LinkRecord> {
  return {
    ...link,
    createdAt: new Date(link.createdAt),
    disabled: { ...link.disabled, at: new Date(link.disabled.at) },
    expiresAt: new Date(link.expiresAt),
  };
}

const dirs = tempDirs('link-shape');
afterAll(() => dirs.removeAll());

/**
 * FULL stored through a store's port: inserted with what an insert takes, then disabled, then
 * counted once; answered by every read.
 */
async function throughPort(store: Store): Promise<void> {
  const { id: _id, disabled, visits: _visits, ...insertable } = FULL;
  const inserted = await store.links.insert(insertable);
  expect(inserted).toMatchObject({ id: 1, visits: 0 });
  const acting = { at: disabled.at, by: 'user:alice', refuseHeld: true } as const;
  const changed = await store.links.setDisabled(1, disabled, acting);
  expect(changed).toMatchObject({ changed: true });
  await expect(store.links.takeVisit(1)).resolves.toBe('counted');
  expectEveryField(await store.links.findById(1));
  expectEveryField(await store.links.findByAlias(FULL.domain, FULL.alias));
  const [listed] = await store.links.list({ limit: 1 });
  expectEveryField(listed);
  // An edit's answer is the link with every field too.
  const edited = await store.links.update(1, { url: 'https://example.com/other' }, acting);
  expect(edited).toMatchObject({ changed: true });
  if (edited === null || edited === 'held') throw new Error(`update answered ${edited}`);
  expectEveryField({ ...edited.link, url: FULL.url });
}

describe('the declared link shape: each store keeps every field', () => {
  it('the memory store (its copies)', async () => {
    const store = createMemoryStore();
    try {
      await throughPort(store);
    } finally {
      await store.close();
    }
  });

  it('LMDB: the tuple codec, and the store', async () => {
    expectEveryField(fromStoredLink([FULL.domain, FULL.alias], toStoredLink(FULL)));
    const store = await createLmdbStore({ dataDir: join(await dirs.make(), 'data') });
    try {
      await throughPort(store);
    } finally {
      await store.close();
    }
  });

  it('MongoDB: the document mapping (no server here)', () => {
    const document = toLinkFields(FULL) as WithId<LinkDocument>;
    // Every field but the id has a key of its own; the id is the document's _id.
    expect(Object.keys(document).sort()).toEqual(
      [...LINK_FIELDS.filter((field) => field !== 'id'), '_id'].sort(),
    );
    expect(document._id).toBe(FULL.id);
    expectEveryField(toLinkRecord(document));
  });
});

describe('the declared link shape: the view and the gRPC message', () => {
  it('shows every field of LinkView for a link that has them all', () => {
    const view = toLinkView(FULL, 12);
    expect(Object.keys(view).sort()).toEqual([...VIEW_FIELDS].sort());
    expect(view).toStrictEqual({
      id: 1,
      short_url: 'https://acme.link/every-field',
      url: FULL.url,
      domain: 'acme.link',
      alias: 'every-field',
      redirect_type: 307,
      url_group_id: '42',
      state: 'disabled',
      created_at: '2026-05-04T10:11:12.345Z',
      disabled_reason: 'reported',
      disabled_at: '2026-06-07T08:09:10.111Z',
      disabled_by: 'user:alice',
      expires_at: '2027-01-02T03:04:05.678Z',
      max_visits: 5,
      visit_count: 12,
    });
    // Without a visit total read (every procedure but links.get and links.list), none is shown.
    expect(Object.keys(toLinkView(FULL))).not.toContain('visit_count');
  });

  it('fills every field of the gRPC ShortLink from the view', () => {
    const message = toShortLinkMessage(toLinkView(FULL, 12));
    const expected: Required<ShortLink> = {
      id: 1,
      shortUrl: 'https://acme.link/every-field',
      url: FULL.url,
      domain: 'acme.link',
      alias: 'every-field',
      redirectType: 307,
      state: LinkState.LINK_STATE_DISABLED,
      createdAt: FULL.createdAt,
      urlGroupId: '42',
      disabledReason: 'reported',
      disabledAt: FULL.disabled.at,
      disabledBy: 'user:alice',
      expiresAt: FULL.expiresAt,
      maxVisits: 5,
      visitCount: 12,
    };
    expect(message).toStrictEqual(expected);
    for (const [field, value] of Object.entries(message)) {
      expect([field, value]).not.toEqual([field, undefined]);
    }
  });
});
