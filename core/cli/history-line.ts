import type { LinkHistoryView } from '../links/history-view';

/** A changed value as the operator reads it: `none` for no expiry or limit. */
const valueText = (value: string | null) => value ?? 'none';

/**
 * One entry of a link's history as one line, time first:
 * `2026-03-02T10:00:00.000Z disabled by admin: phishing kit, ticket 881`.
 */
export function historyLine(entry: LinkHistoryView): string {
  const head = `${entry.at} ${entry.kind} by ${entry.by}`;
  switch (entry.kind) {
    case 'updated': {
      const changes = (entry.changes ?? []).map(
        ({ field, from, to }) => `${field} ${valueText(from)} → ${valueText(to)}`,
      );
      return `${head}: ${changes.join(', ')}`;
    }
    case 'disabled':
      return `${head}: ${entry.reason ?? ''}`;
    case 'created':
    case 'enabled':
      return head;
  }
}
