import type { LinkFieldChange, LinkHistoryEntry, LinkRecord } from '../ports/link-store';
import { actorOf } from './link-actor';

/** One entry of a link's history as links.history answers it; times are ISO 8601 text (UTC). */
export interface LinkHistoryView {
  kind: 'created' | 'updated' | 'disabled' | 'enabled';
  at: string;
  /** `user:<id>`, `admin` (the operator's CLI) or `rescan`. */
  by: string;
  /** Why, for `disabled` only. */
  reason?: string;
  /** Each field changed, with its value before and after (null: none), for `updated` only. */
  changes?: LinkFieldChange[];
}

/** The first entry of every history, read from the link itself (the store keeps no entry of it). */
export function createdEntry(link: LinkRecord): LinkHistoryView {
  return { kind: 'created', at: link.createdAt.toISOString(), by: `user:${link.userId}` };
}

/**
 * The disable of a link disabled before histories were kept, read from the link: without it the
 * history of a link taken down then would not say so, nor why.
 */
export function earlierDisabledEntry(link: LinkRecord): LinkHistoryView | undefined {
  const { disabled } = link;
  if (!disabled) return undefined;
  return {
    kind: 'disabled',
    at: disabled.at.toISOString(),
    by: actorOf(disabled.by),
    reason: disabled.reason,
  };
}

export function toHistoryView(entry: LinkHistoryEntry): LinkHistoryView {
  const shown = { at: entry.at.toISOString(), by: actorOf(entry.by) };
  switch (entry.kind) {
    case 'updated':
      return { kind: 'updated', ...shown, changes: entry.changes.map((change) => ({ ...change })) };
    case 'disabled':
      return { kind: 'disabled', ...shown, reason: entry.reason };
    case 'enabled':
      return { kind: 'enabled', ...shown };
  }
}
