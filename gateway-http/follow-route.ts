import type { RequestHandler } from 'express';
import { ShortlinkError, type Core, type ResponseInfo, type ShortlinkMetrics } from '../core';
import { sendError } from './envelope';
import { sendLinkGone } from './link-gone';
import { setRateLimitHeaders } from './rate-limit-headers';
import { requestHost } from './request-host';

/** Cache-Control of a redirect: permanent ones may be cached briefly, temporary ones never. */
function redirectCacheControl(status: number, maxAgeSeconds: number): string {
  return status === 301 || status === 308 ? `private, max-age=${maxAgeSeconds}` : 'no-store';
}

/**
 * GET|HEAD /<alias> on a link domain: answers with the link's redirect, or 410 for a link that
 * must not be followed (LINK_DISABLED), or the contract's error in its JSON body, as every other
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
        .links.resolve({ domain: requestHost(req), alias: String(req.params.alias) });
      // The WHATWG serialisation is ASCII (punycode host, percent-encoded path): header-safe.
      const location = new URL(link.url).href;
      // node's own calls: express's status() and set() would only validate and re-stringify.
      res.statusCode = link.redirect_type;
      res.setHeader('Location', location);
      res.setHeader('Cache-Control', redirectCacheControl(link.redirect_type, maxAgeSeconds));
      res.end();
      measured?.observe(0, startedAt);
      followed?.(0);
    } catch (error) {
      // The caller rejects with ShortlinkErrors only; anything else is for the last resort.
      if (!(error instanceof ShortlinkError)) throw error;
      if (error.reason === 'LINK_DISABLED') {
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
