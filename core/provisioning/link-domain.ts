/**
 * Normalises a link domain (`host` or `host:port`) with the WHATWG URL parser: lower case,
 * internationalised names in punycode, no trailing dot; so `Acme.Link.`, `acme.link` and
 * `ACME.LINK` are one domain, and `bücher.link` is `xn--bcher-kva.link`. Null when the text is
 * anything else (a path, credentials, a scheme).
 */
export function normalizeLinkDomain(text: string): string | null {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === '' || /[/?#@\s\\]/.test(trimmed)) return null;
  const parsed = URL.parse(`http://${trimmed}`);
  if (!parsed || parsed.hostname === '') return null;
  const hostname = parsed.hostname.endsWith('.') ? parsed.hostname.slice(0, -1) : parsed.hostname;
  if (hostname === '') return null;
  // URL drops the default port (":80"); a domain written with it keeps it.
  const port = parsed.port !== '' ? parsed.port : /:0*80$/.test(trimmed) ? '80' : '';
  return port === '' ? hostname : `${hostname}:${port}`;
}
