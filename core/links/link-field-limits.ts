import type { RedirectType } from '../ports/link-store';

/** The longest chosen or generated alias, in characters. */
export const MAX_ALIAS_LENGTH = 64;

/** The redirect statuses a link may answer with. */
export const REDIRECT_TYPES = [301, 302, 303, 307, 308] as const satisfies readonly RedirectType[];
