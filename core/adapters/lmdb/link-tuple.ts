import type {
  EveryField,
  LinkFieldChange,
  LinkHistoryEntry,
  LinkRecord,
} from '../../ports/link-store';
import { withoutAbsent } from '../../links/link-shape';
import type { LinkKey, StoredHistoryEntry, StoredLink } from './databases';

/** The elements every stored link has; the optional fields follow (see StoredLink). */
const REQUIRED_ELEMENTS = 8;

/**
 * Each field of a link and where the tuple keeps it: a position, or the key. Written over every
 * field (EveryField), so a field added to LinkRecord fails the compiler here until it has a place.
 */
export function toStoredLink(link: LinkRecord): StoredLink {
  const { disabled } = link;
  const places: EveryField<LinkRecord> = {
    domain: undefined, // the key
    alias: undefined, // the key
    id: link.id,
    url: link.url,
    redirectType: link.redirectType,
    scheme: link.scheme,
    organizationId: link.organizationId,
    groupApiId: link.groupApiId,
    userId: link.userId,
    createdAt: link.createdAt,
    disabled,
    expiresAt: link.expiresAt,
    maxVisits: link.maxVisits,
    visits: link.visits,
  };
  const stored: StoredLink = [
    link.id,
    link.url,
    link.redirectType,
    link.scheme,
    link.organizationId,
    link.groupApiId,
    link.userId,
    link.createdAt.getTime(),
    places.disabled
      ? [places.disabled.reason, places.disabled.at.getTime(), places.disabled.by]
      : null,
    places.expiresAt?.getTime() ?? null,
    places.maxVisits ?? null,
    places.visits ?? null,
  ];
  // Trailing absent fields are not written: an active link without the new fields stays 8 long.
  while (stored.length > REQUIRED_ELEMENTS && stored[stored.length - 1] === null) stored.pop();
  return stored;
}

export function fromStoredLink([domain, alias]: LinkKey, stored: StoredLink): LinkRecord {
  const [id, url, redirectType, scheme, organizationId, groupApiId, userId, createdAtMs] = stored;
  const [, , , , , , , , disabled, expiresAtMs, maxVisits, visits] = stored;
  const fields: EveryField<LinkRecord> = {
    id,
    domain,
    alias,
    url,
    redirectType,
    scheme,
    organizationId,
    groupApiId,
    userId,
    createdAt: new Date(createdAtMs),
    disabled: Array.isArray(disabled)
      ? { reason: disabled[0], at: new Date(disabled[1]), by: disabled[2] }
      : undefined,
    expiresAt: typeof expiresAtMs === 'number' ? new Date(expiresAtMs) : undefined,
    maxVisits: maxVisits ?? undefined,
    visits: typeof maxVisits === 'number' ? (visits ?? 0) : undefined,
  };
  return withoutAbsent(fields);
}

export function toStoredEntry(entry: LinkHistoryEntry): StoredHistoryEntry {
  const at = entry.at.getTime();
  switch (entry.kind) {
    case 'updated':
      return [
        'updated',
        at,
        entry.by,
        entry.changes.map(({ field, from, to }): [string, string | null, string | null] => [
          field,
          from,
          to,
        ]),
      ];
    case 'disabled':
      return ['disabled', at, entry.by, entry.reason];
    case 'enabled':
      return ['enabled', at, entry.by];
  }
}

export function fromStoredEntry(stored: StoredHistoryEntry): LinkHistoryEntry {
  const at = new Date(stored[1]);
  switch (stored[0]) {
    case 'updated':
      return {
        kind: 'updated',
        at,
        by: stored[2],
        changes: stored[3].map(([field, from, to]) => ({
          field: field as LinkFieldChange['field'],
          from,
          to,
        })),
      };
    case 'disabled':
      return { kind: 'disabled', at, by: stored[2], reason: stored[3] };
    case 'enabled':
      return { kind: 'enabled', at, by: stored[2] };
  }
}
