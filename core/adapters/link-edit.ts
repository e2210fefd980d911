import {
  isHeldByOperator,
  type LinkActing,
  type LinkDisabling,
  type LinkEdit,
  type LinkFieldChange,
  type LinkHistoryEntry,
  type LinkRecord,
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
function applyEdit(
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
function stateEntry(disabling: LinkDisabling | null, acting: LinkActing): LinkHistoryEntry {
  return disabling
    ? { kind: 'disabled', at: disabling.at, by: disabling.by, reason: disabling.reason }
    : { kind: 'enabled', at: acting.at, by: acting.by };
}

/** The history entry of an edit that changed `changes`. */
function editEntry(changes: LinkFieldChange[], acting: LinkActing): LinkHistoryEntry {
  return { kind: 'updated', at: acting.at, by: acting.by, changes };
}

/**
 * What a change makes of the link it read: the link to write and its history entry (null when
 * nothing changes), or 'held'. Each store decides with these, inside its own atomic write.
 */
export type LinkDecision = { link: LinkRecord; entry: LinkHistoryEntry | null } | 'held';

/**
 * A disable (`disabling`) or an enable (null): a member's enable of a link the operator or a
 * rescan disabled is held; a link already in the asked state is left as it is (a disabled link
 * keeps its first reason, time and author).
 */
export function decideStateChange(
  link: LinkRecord,
  disabling: LinkDisabling | null,
  acting: LinkActing,
): LinkDecision {
  if (!disabling && acting.refuseHeld && isHeldByOperator(link)) return 'held';
  if ((link.disabled !== undefined) === (disabling !== null)) return { link, entry: null };
  const { disabled: _, ...active } = link;
  const changed: LinkRecord = disabling ? { ...active, disabled: disabling } : active;
  return { link: changed, entry: stateEntry(disabling, acting) };
}

/** An edit: held for a member on a link the operator or a rescan disabled; no entry when equal. */
export function decideEdit(link: LinkRecord, edit: LinkEdit, acting: LinkActing): LinkDecision {
  if (acting.refuseHeld && isHeldByOperator(link)) return 'held';
  const edited = applyEdit(link, edit);
  if (edited.changes.length === 0) return { link, entry: null };
  return { link: edited.link, entry: editEntry(edited.changes, acting) };
}
