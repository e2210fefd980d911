import { types } from 'node:util';
import type { Clock } from '../ports/clock';

/**
 * An embedder's clock, held to its port: `now()` must give a valid Date. Otherwise a create fails
 * with INTERNAL (the logged cause says what the clock gave) rather than storing a link with no
 * creation time, or an idempotency record whose expiry, NaN, reads as expired at once (so the
 * same key created a second link).
 */
export function checkedClock(clock: Clock): Clock {
  return {
    now: () => {
      const now: unknown = clock.now();
      if (types.isDate(now) && !Number.isNaN(now.getTime())) return now;
      const shown = types.isDate(now) ? 'an invalid Date' : typeof now;
      throw new Error(`the clock's now() returned ${shown}, not a valid Date`);
    },
  };
}
