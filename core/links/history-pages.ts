import type { LinkRecord, LinkStore } from '../ports/link-store';
import {
  createdEntry,
  earlierDisabledEntry,
  toHistoryView,
  type LinkHistoryView,
} from './history-view';

/**
 * A link's history is read as one sequence numbered from 0: the creation (0, from the link
 * itself), the slot of a disable made before histories were kept (1, empty for almost every link),
 * then the store's entries (its position p at p + 1). A page is given from such a number and
 * tells the number the next page starts at, so a page token is that one number.
 */
interface HistoryPage {
  /** Oldest first. */
  entries: LinkHistoryView[];
  /** Where the next page starts. */
  next: number;
  /** Whether anything follows this page. */
  more: boolean;
}

/** The most stored entries read at once while looking for a recorded disable. */
const SCAN_PAGE = 100;

/**
 * The disable of a link disabled before histories were kept: the link is disabled and its
 * history holds no disable (a disable is recorded with the change since, and a link leaves its
 * disabled state only by an enable, which is recorded too).
 */
async function earlierDisabling(
  links: LinkStore,
  link: LinkRecord,
): Promise<LinkHistoryView | undefined> {
  if (!link.disabled) return undefined;
  for (let after = 0; ; after += SCAN_PAGE) {
    const stored = await links.history(link.id, { after, limit: SCAN_PAGE });
    if (stored.some(({ entry }) => entry.kind === 'disabled')) return undefined;
    if (stored.length < SCAN_PAGE) return earlierDisabledEntry(link);
  }
}

/** At most `size` (at least 1) entries of `link`'s history from number `from` (0: the first). */
export async function historyPage(
  links: LinkStore,
  link: LinkRecord,
  from: number,
  size: number,
): Promise<HistoryPage> {
  const entries: LinkHistoryView[] = [];
  let next = from;
  if (next === 0) {
    entries.push(createdEntry(link));
    next = 1;
  }
  if (next === 1) {
    const earlier = await earlierDisabling(links, link);
    if (earlier && entries.length === size) return { entries, next, more: true };
    if (earlier) entries.push(earlier);
    next = 2;
  }
  const room = size - entries.length;
  // One more than the room: whether another page follows, without a second read.
  const stored = await links.history(link.id, { after: next - 2, limit: room + 1 });
  for (const { position, entry } of stored.slice(0, room)) {
    entries.push(toHistoryView(entry));
    next = position + 2;
  }
  return { entries, next, more: stored.length > room };
}
