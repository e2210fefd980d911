import { isAbsent, ownField } from '../procedure/raw-input';
import { visitDayOf } from '../ports/visit-store';
import { argumentsError, argumentsSchema, governingProcedure } from './governing-procedure';
import { findLinkOf, readLinkReference, type LinkReference } from './link-reference';
import {
  DEFAULT_VISIT_DAYS,
  MAX_VISIT_DAYS,
  readLinkVisits,
  type LinkVisitsView,
} from './visit-days';

/** What an in-process caller passes to `links.visits`. */
export interface LinkVisitsRequest {
  organization_key: string;
  id?: number | string | null;
  alias?: string | null;
  /** The last this many UTC days, today included: 1 to 400; absent, null or 0: 30. */
  days?: number | null;
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
    const today = visitDayOf(ctx.deps.clock.now());
    return readLinkVisits(ctx.deps.store.visits, link.id, today, input.days);
  });
