import type { Request } from 'express';

/** A request target in absolute form: a scheme, then `//` and an authority (RFC 9112, 3.2.2). */
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The host a request is for. In absolute form (`GET http://a.link/x HTTP/1.1`, as a client talking
 * to a proxy sends it) RFC 9112 (3.2.2) has the server ignore the Host header and use the request
 * target's own host: `a.link` here, whatever Host says. Otherwise express's `req.host`: the Host
 * header, or a trusted proxy's X-Forwarded-Host, which stays first either way (the proxy says what
 * the client asked for). The text is as a Host header would carry it (`host` or `host:port`, the
 * scheme's default port dropped): the core compares it the same way.
 */
export function requestHost(req: Request): string {
  const host = req.host;
  // express read X-Forwarded-Host (a trusted proxy's) when its answer is not the Host header.
  if (host !== req.get('host')) return host;
  // The request line as received: express's router rewrites req.url, never originalUrl.
  const target = req.originalUrl;
  if (!ABSOLUTE_FORM.test(target)) return host;
  // A target the URL parser cannot read, or with an empty host (a scheme not http's): Host decides.
  return URL.parse(target)?.host || host;
}
