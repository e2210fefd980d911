import { isAbsent, ownField } from '../procedure/raw-input';
import { visitDayOf, visitDayText, type DayVisits } from '../ports/visit-store';
import { argumentsError, argumentsSchema, governingProcedure } from './governing-procedure';
import { findLinkOf, readLinkReference, type LinkReference } from './link-reference';

/** Days read unless `days` says otherwise, and the most one reading covers. */
const DEFAULT_VISIT_DAYS = 30;
const MAX_VISIT_DAYS = 400;

/** What an in-process caller passes to `links.visits`. */
export interface LinkVisitsRequest {
  organization_key: string;
  id?: number | string | null;
  alias?: string | null;
  /** The last this many UTC days, today included: 1 to 400; absent, null or 0: 30. */
  days?: number | null;
}

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

interface VisitsArguments {
  reference: LinkReference;
  days: number;
}

function readDays(body: unknown): number | { problem: string } {
  const raw = ownField(body, 'days');
  if (isAbsent(raw) || raw === 0) return DEFAULT_VISIT_DAYS;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 && raw <= MAX_VISIT_DAYS) {
    return raw;
  }
  return { problem: `days must be a whole number from 1 to ${MAX_VISIT_DAYS}.` };
}

const visitsArguments = argumentsSchema<VisitsArguments>((body) => {
  const reference = readLinkReference(body);
  const days = readDays(body);
  if (typeof reference === 'string' || typeof days !== 'number') {
    return {
      problems: [
        ...(typeof reference === 'string' ? [reference] : []),
        ...(typeof days === 'number' ? [] : [days.problem]),
      ],
    };
  }
  return { reference, days };
});

const counts = (humans: number, bots: number): VisitCountsView => ({
  visits: humans + bots,
  humans,
  bots,
});

/**
 * `links.visits`: a link's redirects, in total and per UTC day over the last `days` days (the
 * store's counts: visits of the current flush interval are not there yet). Governed as
 * links.history: a link of another organization is NOT_FOUND. A store that keeps no visits
 * answers zeros.
 */
export const linkVisits = governingProcedure
  .input(visitsArguments, argumentsError)
  .query(async ({ ctx, input }): Promise<LinkVisitsView> => {
    const link = await findLinkOf(ctx.deps.store.links, ctx.organization, input.reference);
    const visits = ctx.deps.store.visits;
    const to = visitDayOf(ctx.deps.clock.now());
    const from = to - input.days + 1;
    const [stored, totals] = visits
      ? await Promise.all([visits.read(link.id, from, to), visits.totals([link.id])])
      : [[], new Map<number, { humans: number; bots: number }>()];
    const byDay = new Map<number, DayVisits>(stored.map((day) => [day.day, day]));
    const total = totals.get(link.id);
    return {
      link_id: link.id,
      totals: counts(total?.humans ?? 0, total?.bots ?? 0),
      days: Array.from({ length: input.days }, (_, index) => {
        const day = byDay.get(from + index);
        return { day: visitDayText(from + index), ...counts(day?.humans ?? 0, day?.bots ?? 0) };
      }),
    };
  });
