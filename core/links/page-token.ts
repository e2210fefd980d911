import { createHash } from 'node:crypto';
import type { LinkPosition } from '../ports/link-store';

/**
 * The opaque `page_token` of a paged reading: where the next page starts, bound to the reading it
 * came from (links.list: the organization and group; links.history: the organization and link),
 * so a token is never read against another one. base64url of `1.<position>.<scope>` (a history,
 * and listings before they were ordered by creation time: the last link's id), or of
 * `2.<creation time in ms>.<id>.<scope>` (a listing); nothing in it is secret, and a client must
 * not parse it.
 */
const VERSION = '1';
const LISTING_VERSION = '2';

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

/** links.list's token: the position (the last link's) the next page starts after. */
export function encodePageToken(
  after: LinkPosition,
  organizationId: string,
  groupApiId: string | undefined,
): string {
  const scope = listingScope(organizationId, groupApiId);
  const text = `${LISTING_VERSION}.${after.createdAt.getTime()}.${after.id}.${scope}`;
  return Buffer.from(text).toString('base64url');
}

/**
 * Where a listing's token says the page starts: after a position, or, for a token of a listing
 * by id (an earlier version), after the link with that id; null when it is no token of this
 * listing.
 */
export function decodePageToken(
  token: string,
  organizationId: string,
  groupApiId: string | undefined,
): { after: LinkPosition } | { afterLinkId: number } | null {
  const scope = listingScope(organizationId, groupApiId);
  const byId = decode(token, scope);
  if (byId !== null) return { afterLinkId: byId };
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(token)) return null;
  const parts = Buffer.from(token, 'base64url').toString('utf8').split('.');
  if (parts.length !== 4 || parts[0] !== LISTING_VERSION || parts[3] !== scope) return null;
  const [, ms = '', id = ''] = parts;
  if (!/^-?\d{1,16}$/.test(ms) || !/^[1-9]\d{0,15}$/.test(id)) return null;
  const createdAt = new Date(Number(ms));
  const linkId = Number(id);
  if (Number.isNaN(createdAt.getTime()) || !Number.isSafeInteger(linkId)) return null;
  return { after: { createdAt, id: linkId } };
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
