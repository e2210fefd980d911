import { z } from 'zod';
import { MAX_EXPIRY_YEARS, MAX_VISITS_LIMIT } from './link-field-limits';

/** The rules of a link's limits, `expires_at` and `max_visits`, declared once for every request. */

/**
 * RFC 3339's date-time with its offset (`Z` or `±hh:mm`, seconds required, any fraction): zod's
 * pattern, which checks the calendar too (no February 30, leap years), read case-insensitively
 * because RFC 3339 allows a lower-case `t` and `z`. No leap second (`:60`): a Date has none.
 */
const RFC_3339_DATE_TIME = new RegExp(
  z.core.regexes.datetime({ offset: true, local: false }).source,
  'i',
);

/**
 * The instant an RFC 3339 date-time names, to the millisecond (a Date's precision: further digits
 * are dropped); null when the text is not one.
 */
function parseDateTime(text: string): Date | null {
  // The pattern holds ASCII only, so upper case changes the `t` and `z` alone, which Date.parse
  // reads in upper case only.
  return RFC_3339_DATE_TIME.test(text) ? new Date(text.toUpperCase()) : null;
}

/**
 * `expires_at` as a request gives it: an RFC 3339 date-time with an offset, or null or absent
 * (never). Whether the instant is in range depends on the time of the request: expiryInRange.
 */
export const expiresAtSchema = z
  .string()
  .transform((text, ctx) => {
    const at = parseDateTime(text);
    if (at === null) {
      ctx.addIssue({ code: 'custom', message: 'not an RFC 3339 date-time with an offset' });
      return z.NEVER;
    }
    return at;
  })
  .nullish()
  .transform((at) => at ?? undefined);

/** The latest expiry a link may be given at `now`: MAX_EXPIRY_YEARS later, by the UTC calendar. */
function latestExpiry(now: Date): Date {
  const latest = new Date(now.getTime());
  latest.setUTCFullYear(latest.getUTCFullYear() + MAX_EXPIRY_YEARS);
  return latest;
}

/** Whether a link may be given `at` as its expiry at `now`: later than now, not past the latest. */
export function expiryInRange(at: Date, now: Date): boolean {
  return at.getTime() > now.getTime() && at.getTime() <= latestExpiry(now).getTime();
}

/** `max_visits`: an integer from 1 to MAX_VISITS_LIMIT (a JSON number), or null or absent (none). */
export const maxVisitsSchema = z
  .int()
  .min(1)
  .max(MAX_VISITS_LIMIT)
  .nullish()
  .transform((limit) => limit ?? undefined);
