import type {
  LinkActing,
  LinkDisabling,
  LinkEdit,
  LinkFieldChange,
  LinkHistoryEntry,
  LinkRecord,
} from '../ports/link-store';

/** A link's time or count as its history keeps it: text, or null for none. */
const timeText = (value: Date | undefined): string | null => value?.toISOString() ?? null;
const countText = (value: number | undefined): string | null =>
  value === undefined ? null : String(value);

/**
 * `link` with `edit` applied, and each field it changed (old and new value); a field equal to the
 * stored one is no change. The same rules for every store: the memory and LMDB stores apply it in
 * their atomic write, MongoDB in a write conditional on the link it read.
 */
export function applyEdit(
  link: LinkRecord,
  edit: LinkEdit,
): { link: LinkRecord; changes: LinkFieldChange[] } {
  const next: LinkRecord = { ...link };
  const changes: LinkFieldChange[] = [];
  if (edit.url !== undefined && edit.url !== link.url) {
    changes.push({ field: 'url', from: link.url, to: edit.url });
    next.url = edit.url;
  }
  if (edit.redirectType !== undefined && edit.redirectType !== link.redirectType) {
    changes.push({
      field: 'redirect_type',
      from: String(link.redirectType),
      to: String(edit.redirectType),
    });
    next.redirectType = edit.redirectType;
  }
  if (edit.expiresAt !== undefined) {
    const from = timeText(link.expiresAt);
    const to = timeText(edit.expiresAt ?? undefined);
    if (from !== to) changes.push({ field: 'expires_at', from, to });
    if (edit.expiresAt) next.expiresAt = new Date(edit.expiresAt);
    else delete next.expiresAt;
  }
  if (edit.maxVisits !== undefined) {
    const from = countText(link.maxVisits);
    const to = countText(edit.maxVisits ?? undefined);
    if (from !== to) changes.push({ field: 'max_visits', from, to });
    if (edit.maxVisits === null) {
      delete next.maxVisits;
      delete next.visits;
    } else {
      next.maxVisits = edit.maxVisits;
      // Counting starts when a limit is first set, and goes on from its count when it is edited.
      next.visits = link.visits ?? 0;
    }
  }
  return { link: next, changes };
}

/** The history entry of a state change: disabled with its reason, or enabled. */
export function stateEntry(disabling: LinkDisabling | null, acting: LinkActing): LinkHistoryEntry {
  return disabling
    ? { kind: 'disabled', at: disabling.at, by: disabling.by, reason: disabling.reason }
    : { kind: 'enabled', at: acting.at, by: acting.by };
}

/** The history entry of an edit that changed `changes`. */
export function editEntry(changes: LinkFieldChange[], acting: LinkActing): LinkHistoryEntry {
  return { kind: 'updated', at: acting.at, by: acting.by, changes };
}
