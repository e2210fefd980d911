export const MAX_URL_LENGTH = 2048;
/** DNS limit of a name in text form (RFC 1035), measured on the parsed (punycode) host. */
export const MAX_HOST_LENGTH = 253;
/** The longest Host a link domain is reached by: the longest name, its trailing dot and a port. */
export const MAX_HOST_HEADER_LENGTH = MAX_HOST_LENGTH + '.:65535'.length;

// Whitespace (Unicode included) and C0/C1 control characters may not appear inside a URL, nor
// the bidirectional formatting characters (RLO, LRM, isolates...), which RFC 3987 (4.1) forbids in
// an IRI: they make a URL read otherwise than it goes (`/\u202Efdp.exe` shows as `/exe.pdf`).
// Nor a lone surrogate (`\ud800`, which a JSON escape can carry): it is no Unicode text, and the
// URL parser, the stores and gRPC would each turn it into U+FFFD, a URL the client never sent.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_INSIDE = /[\s\u0000-\u001f\u007f-\u009f\p{Bidi_Control}\p{Cs}]/u;
// The host must follow the two slashes: WHATWG would read `http:///x` as host "x".
const HTTP_SCHEME = /^https?:\/\/(?![/\\])/i;

/**
 * Parses a long URL by the contract: `http://` or `https://` (any case), WHATWG-parseable, with a
 * host, no whitespace or control characters inside. Expects the text already trimmed.
 */
export function parseLongUrl(text: string): URL | null {
  if (text.length > MAX_URL_LENGTH || !HTTP_SCHEME.test(text) || FORBIDDEN_INSIDE.test(text)) {
    return null;
  }
  const parsed = URL.parse(text);
  if (parsed === null || parsed.hostname === '' || hostTooLong(parsed)) return null;
  return parsed;
}

/**
 * A host no resolver would accept: refused here, with the URL's other faults, before any
 * anti-phishing rule spends time on it.
 */
export function hostTooLong(url: URL): boolean {
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  return host.length > MAX_HOST_LENGTH;
}
