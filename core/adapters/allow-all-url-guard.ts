import type { UrlGuard } from '../ports/url-guard';

/** The pass-through guard: every URL that passed validation may be shortened. */
export const allowAllUrlGuard: UrlGuard = {
  check: () => Promise.resolve({ blocked: false }),
};
