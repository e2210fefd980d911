import type { VisitStore } from '../ports/visit-store';

/**
 * The visit total (humans and bots) of each link asked, in one store read whatever their number:
 * what links.get and links.list put in `visit_count`. The store's counts only: a running service
 * sends its visits at most every VISITS_FLUSH_SECONDS, so a total may be that far behind. Without
 * a visit store, zeros.
 */
export async function visitCountsOf(
  visits: VisitStore | undefined,
  linkIds: readonly number[],
): Promise<Map<number, number>> {
  const counts = new Map<number, number>(linkIds.map((id) => [id, 0]));
  if (!visits || linkIds.length === 0) return counts;
  for (const [id, { humans, bots }] of await visits.totals(linkIds)) {
    counts.set(id, humans + bots);
  }
  return counts;
}
