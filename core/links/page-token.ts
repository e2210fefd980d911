import { createHash } from 'node:crypto';

/**
 * The opaque `page_token` of a paged reading: where the next page starts, bound to the reading it
 * came from (links.list: the organization and group; links.history: the organization and link),
 * so a token is never read against another one. base64url of `1.<position>.<scope>`; nothing in it
 * is secret, and a client must not parse it.
 */
const VERSION = '1';

/** A reading's scope: the JSON of its parts, hashed short. Listings keep their first form. */
function scopeOf(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 12);
}

const listingScope = (organizationId: string, groupApiId: string | undefined) =>
  scopeOf([organizationId, groupApiId ?? null]);

// Three parts, so no listing's scope (two parts) is ever a history's.
const historyScope = (organizationId: string, linkId: number) =>
  scopeOf(['history', organizationId, linkId]);

function encode(position: number, scope: string): string {
  return Buffer.from(`${VERSION}.${position}.${scope}`).toString('base64url');
}

/** The position a token carries, or null when it is no token of the reading `scope` names. */
function decode(token: string, scope: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(token)) return null;
  const parts = Buffer.from(token, 'base64url').toString('utf8').split('.');
  if (parts.length !== 3 || parts[0] !== VERSION) return null;
  const [, position = '', given] = parts;
  if (!/^[1-9]\d{0,15}$/.test(position) || given !== scope) return null;
  const value = Number(position);
  return Number.isSafeInteger(value) ? value : null;
}

/** links.list's token: the id the next page starts below. */
export function encodePageToken(
  beforeId: number,
  organizationId: string,
  groupApiId: string | undefined,
): string {
  return encode(beforeId, listingScope(organizationId, groupApiId));
}

/** The id a token says the page starts below, or null when it is no token of this listing. */
export function decodePageToken(
  token: string,
  organizationId: string,
  groupApiId: string | undefined,
): number | null {
  return decode(token, listingScope(organizationId, groupApiId));
}

/** links.history's token: how many entries of the link's history the pages before gave. */
export function encodeHistoryToken(given: number, organizationId: string, linkId: number): string {
  return encode(given, historyScope(organizationId, linkId));
}

/** The entries a history token says were given, or null when it is no token of this link's. */
export function decodeHistoryToken(
  token: string,
  organizationId: string,
  linkId: number,
): number | null {
  return decode(token, historyScope(organizationId, linkId));
}
