import type { RedirectType } from '../ports/link-store';

/** The longest chosen or generated alias, in characters. */
export const MAX_ALIAS_LENGTH = 64;

/** The redirect statuses a link may answer with. */
export const REDIRECT_TYPES = [301, 302, 303, 307, 308] as const satisfies readonly RedirectType[];

/** How far ahead a link's expires_at may be, in years. */
export const MAX_EXPIRY_YEARS = 10;

/** The largest max_visits a link may have (the least is 1). */
export const MAX_VISITS_LIMIT = 1_000_000_000;
