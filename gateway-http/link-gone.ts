import { PLAIN_PAGE_CONTENT_SECURITY_POLICY } from './plain-page';
import type { Request, Response } from 'express';
import type { ShortlinkError } from '../core';
import { sendError } from './envelope';
import { LINK_GONE_PAGES, type LinkGoneReason } from './link-gone-page';
import { HTTP_STATUS_BY_REASON } from './status-by-reason';

/** Each page's bytes, made once. */
const PAGES = Object.fromEntries(
  Object.entries(LINK_GONE_PAGES).map(([reason, page]) => [reason, Buffer.from(page)]),
) as Record<LinkGoneReason, Buffer>;

/** A link that must not be followed (LINK_DISABLED, LINK_EXPIRED). */
export function isLinkGone(
  error: ShortlinkError,
): error is ShortlinkError & { reason: LinkGoneReason } {
  return Object.hasOwn(PAGES, error.reason);
}

/**
 * A link that must not be followed: 410 with no Location and never the target URL. The contract's
 * JSON envelope when the client prefers JSON by its Accept header (express's negotiation, RFC 9110
 * quality values), otherwise, no Accept header included, the HTML page of its code a browser
 * shows. HEAD gets the same status and headers without the body.
 */
export function sendLinkGone(
  req: Request,
  res: Response,
  error: ShortlinkError & { reason: LinkGoneReason },
): void {
  // Never stored: enabling the link again (or raising its limits) must take effect for every
  // visitor at once.
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Vary', 'Accept');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (req.accepts(['html', 'json']) === 'json') {
    sendError(res, error);
    return;
  }
  // node's own calls with the page's bytes made once: express's send() would hash the page for
  // an ETag on every answer. HEAD: node sends the headers, Content-Length included, and no body.
  const page = PAGES[error.reason];
  res.statusCode = HTTP_STATUS_BY_REASON[error.reason];
  res.setHeader('Content-Security-Policy', PLAIN_PAGE_CONTENT_SECURITY_POLICY);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', page.length);
  res.end(page);
}
