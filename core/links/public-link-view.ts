import type { LinkView } from './link-view';
import type { ShortLink } from './short-link';

/**
 * What anyone may learn of a link without a member's credentials: what following it shows (its
 * target and redirect status) and what naming it says already (its short URL, link domain and
 * alias). Its id, URL group, state and times are its organization's business, which a follow
 * never shows (a caller could otherwise read how many links the deployment holds, or when a
 * link was made). Listed field by field: a field added to a link is not public until it is here.
 */
export type PublicLinkView = Pick<
  ShortLink,
  'short_url' | 'url' | 'domain' | 'alias' | 'redirect_type'
>;

/** The public part of a link that may be followed (links.resolve's answer). */
export function toPublicLinkView(link: LinkView): PublicLinkView {
  return {
    short_url: link.short_url,
    url: link.url,
    domain: link.domain,
    alias: link.alias,
    redirect_type: link.redirect_type,
  };
}
