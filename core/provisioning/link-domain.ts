import { parseHostText } from '../url-guard/host';

/**
 * Normalises a link domain (`host` or `host:port`) with the WHATWG URL parser; null when the
 * text is anything else (a path, credentials, a scheme).
 */
export function normalizeLinkDomain(text: string): string | null {
  const host = parseHostText(text);
  if (!host) return null;
  // URL drops a default port (":80"); keep exactly what was configured when it was valid.
  const { hostname } = host.url;
  return host.url.host === host.text || `${hostname}:80` === host.text ? host.text : null;
}
