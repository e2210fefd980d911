import { z } from 'zod';
import { MAX_EXPIRY_YEARS, MAX_VISITS_LIMIT } from './link-field-limits';

/**
 * The rules of a link's expiry and visit limit (EXPIRES_AT_INVALID, MAX_VISITS_INVALID), declared
 * once for every request that sets them. null is "none": no expiry, no limit.
 */

/** The latest expiry a link may be given at `now`: MAX_EXPIRY_YEARS calendar years ahead. */
function latestExpiry(now: Date): Date {
  const latest = new Date(now);
  latest.setUTCFullYear(latest.getUTCFullYear() + MAX_EXPIRY_YEARS);
  return latest;
}

/**
 * `expires_at`: an RFC 3339 date-time with an offset (`Z` or `±hh:mm`), later than `now` and at
 * most MAX_EXPIRY_YEARS ahead of it. A factory, since "later than now" is read on the core's
 * clock when the request is parsed.
 */
export function expiresAtSchema(now: Date) {
  return z.iso
    .datetime({ offset: true })
    .transform((text) => new Date(text))
    .refine((at) => at.getTime() > now.getTime() && at <= latestExpiry(now))
    .nullable();
}

/** `max_visits`: a whole number from 1 to MAX_VISITS_LIMIT (a JSON number, never its text). */
export const maxVisitsSchema = z.number().int().min(1).max(MAX_VISITS_LIMIT).nullable();
