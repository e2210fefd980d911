import { visitDayText, type DayVisits, type VisitDay, type VisitStore } from '../ports/visit-store';

/** Days read unless `days` says otherwise, and the most one reading covers. */
export const DEFAULT_VISIT_DAYS = 30;
export const MAX_VISIT_DAYS = 400;

/** Redirects counted: `visits` is humans and bots together. */
export interface VisitCountsView {
  visits: number;
  humans: number;
  bots: number;
}

export interface DayVisitsView extends VisitCountsView {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
}

export interface LinkVisitsView {
  link_id: number;
  /** Every redirect of the link since it was made, as the store holds them. */
  totals: VisitCountsView;
  /** Each day of the range, oldest first, days without visits included (zeros). */
  days: DayVisitsView[];
}

const counts = (humans: number, bots: number): VisitCountsView => ({
  visits: humans + bots,
  humans,
  bots,
});

/**
 * A link's visits as the store holds them: its totals, and each of the `days` UTC days ending
 * with `today` (included), oldest first, zeros where nothing was counted. Without a visit store,
 * zeros. What `links.visits` answers and `link visits` (the admin CLI) prints.
 */
export async function readLinkVisits(
  visits: VisitStore | undefined,
  linkId: number,
  today: VisitDay,
  days: number,
): Promise<LinkVisitsView> {
  const from = today - days + 1;
  const [stored, totals] = visits
    ? await Promise.all([visits.read(linkId, from, today), visits.totals([linkId])])
    : [[], new Map<number, { humans: number; bots: number }>()];
  const byDay = new Map<number, DayVisits>(stored.map((day) => [day.day, day]));
  const total = totals.get(linkId);
  return {
    link_id: linkId,
    totals: counts(total?.humans ?? 0, total?.bots ?? 0),
    days: Array.from({ length: days }, (_, index) => {
      const day = byDay.get(from + index);
      return { day: visitDayText(from + index), ...counts(day?.humans ?? 0, day?.bots ?? 0) };
    }),
  };
}
