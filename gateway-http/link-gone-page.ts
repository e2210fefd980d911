import { plainPage } from './plain-page';

/**
 * What a browser is shown for a link that is not followed (410), by its code: for LINK_DISABLED
 * the same page whatever the reason (disabled, organization inactive, target now refused), for
 * LINK_EXPIRED the same whether by date or by visits, so it tells a visitor nothing about the
 * link, its organization or its target.
 */
export const LINK_GONE_PAGE = plainPage('Link disabled', 'This short link has been disabled.');
export const LINK_EXPIRED_PAGE = plainPage('Link expired', 'This short link has expired.');

export const LINK_GONE_PAGES = { LINK_DISABLED: LINK_GONE_PAGE, LINK_EXPIRED: LINK_EXPIRED_PAGE };

/** The codes of a link that is not followed. */
export type LinkGoneReason = keyof typeof LINK_GONE_PAGES;
