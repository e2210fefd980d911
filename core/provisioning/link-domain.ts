/**
 * Normalises a link domain (`host` or `host:port`) with the WHATWG URL parser; null when the
 * text is anything else (a path, credentials, a scheme).
 */
export function normalizeLinkDomain(text: string): string | null {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === '' || /[/?#@\s\\]/.test(trimmed)) return null;
  const parsed = URL.parse(`http://${trimmed}`);
  if (!parsed || parsed.hostname === '') return null;
  // URL drops a default port (":80"); keep exactly what was configured when it was valid.
  return parsed.host === trimmed || `${parsed.hostname}:80` === trimmed ? trimmed : null;
}
