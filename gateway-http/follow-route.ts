import type { RequestHandler } from 'express';
import {
  redirectCaching,
  ShortlinkError,
  type Core,
  type RedirectCaching,
  type ResponseInfo,
  type ShortlinkMetrics,
} from '../core';
import { boundedMemo } from '../core/caches/bounded-memo';
import { sendError } from './envelope';
import { isLinkGone, sendLinkGone } from './link-gone';
import { setRateLimitHeaders } from './rate-limit-headers';
import { requestHost } from './request-host';

/** The core's caching of a redirect as Cache-Control: kept by the follower's browser alone. */
function cacheControlOf(caching: RedirectCaching): string {
  return caching === 'no-store' ? 'no-store' : `private, max-age=${caching.maxAgeSeconds}`;
}

/**
 * A target's Location: its WHATWG serialisation, which is ASCII (punycode host, percent-encoded
 * path), so header-safe. Kept per target (at most 10,000), since a hot link is followed many times.
 */
const locationOf = boundedMemo(10_000, (url: string) => new URL(url).href);

/**
 * GET|HEAD /<alias> on a link domain: answers with the link's redirect, or 410 for a link that
 * must not be followed (LINK_DISABLED, LINK_EXPIRED), or the contract's error in its JSON body, as every other
 * error: 404 (NOT_FOUND) for an unknown alias, 429 (RATE_LIMITED) with Retry-After for a client
 * address past its budget of unknown aliases (express's req.ip: behind TRUST_PROXY, the forwarded
 * client).
 */
export function followLinkHandler(
  core: Core,
  maxAgeSeconds: number,
  metrics?: ShortlinkMetrics,
): RequestHandler {
  const measured = metrics?.operation('rest', 'follow');
  const followed = metrics?.follows('rest');
  return async (req, res) => {
    const startedAt = measured ? performance.now() : 0;
    const response: ResponseInfo = {};
    try {
      // The request's logger, so a store failure (INTERNAL, BACKEND_UNAVAILABLE) is logged with the
      // request id, as on a create; `response` receives the Retry-After of a 429 or a 503.
      const link = await core
        .createCaller({
          clientAddress: req.ip,
          get logger() {
            return req.log;
          },
          response,
        })
        .links.resolve({
          domain: requestHost(req),
          alias: String(req.params.alias),
          // express serves HEAD with this GET route: a HEAD answers no redirect, so it is no visit.
          visit: req.method === 'GET',
          userAgent: req.headers['user-agent'],
        });
      const location = locationOf(link.url);
      // node's own calls: express's status() and set() would only validate and re-stringify.
      res.statusCode = link.redirect_type;
      res.setHeader('Location', location);
      res.setHeader(
        'Cache-Control',
        cacheControlOf(redirectCaching(link, core.deps.clock, maxAgeSeconds)),
      );
      res.end();
      measured?.observe(0, startedAt);
      followed?.(0);
    } catch (error) {
      // The caller rejects with ShortlinkErrors only; anything else is for the last resort.
      if (!(error instanceof ShortlinkError)) throw error;
      if (isLinkGone(error)) {
        sendLinkGone(req, res, error);
      } else {
        // No token, so no token budget: only the Retry-After of a 429 or a 503.
        setRateLimitHeaders(res, response);
        sendError(res, error);
      }
      measured?.observe(error.code, startedAt);
      followed?.(error.code);
    }
  };
}
