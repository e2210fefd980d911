import type { Clock } from '../ports/clock';
import type { LinkView } from './link-view';

/** How long a follower (a browser) may keep a redirect: `no-store`, or up to this many seconds. */
export type RedirectCaching = 'no-store' | { maxAgeSeconds: number };

/**
 * How a followed link's redirect may be cached. Only a permanent redirect (301, 308) is kept,
 * for at most `maxAgeSeconds` (the deployment's setting): a temporary one says to ask again each
 * time. A kept redirect is answered again without asking the service, so it is never kept past
 * the link's expiry (whole seconds until then, floored; by the core's clock), and a link with
 * max_visits is never kept (each redirect must be counted). A link without limits reads no clock.
 */
export function redirectCaching(
  link: Pick<LinkView, 'redirect_type' | 'expires_at' | 'max_visits'>,
  clock: Clock,
  maxAgeSeconds: number,
): RedirectCaching {
  if (link.redirect_type !== 301 && link.redirect_type !== 308) return 'no-store';
  if (link.max_visits !== undefined) return 'no-store';
  if (link.expires_at === undefined) return { maxAgeSeconds };
  const untilExpiry = (Date.parse(link.expires_at) - clock.now().getTime()) / 1000;
  return { maxAgeSeconds: Math.max(0, Math.min(maxAgeSeconds, Math.floor(untilExpiry))) };
}
