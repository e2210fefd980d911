import { createHash } from 'node:crypto';

/**
 * The opaque `page_token` of links.list: the id the next page starts below, bound to the listing
 * it came from (organization and group), so a token is never read against another listing.
 * base64url of `1.<beforeId>.<scope>`; nothing in it is secret, and a client must not parse it.
 */
const VERSION = '1';

function scopeOf(organizationId: string, groupApiId: string | undefined): string {
  return createHash('sha256')
    .update(JSON.stringify([organizationId, groupApiId ?? null]))
    .digest('base64url')
    .slice(0, 12);
}

export function encodePageToken(
  beforeId: number,
  organizationId: string,
  groupApiId: string | undefined,
): string {
  const text = `${VERSION}.${beforeId}.${scopeOf(organizationId, groupApiId)}`;
  return Buffer.from(text).toString('base64url');
}

/** The id a token says the page starts below, or null when it is no token of this listing. */
export function decodePageToken(
  token: string,
  organizationId: string,
  groupApiId: string | undefined,
): number | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(token)) return null;
  const parts = Buffer.from(token, 'base64url').toString('utf8').split('.');
  if (parts.length !== 3 || parts[0] !== VERSION) return null;
  const [, before = '', scope] = parts;
  if (!/^[1-9]\d{0,15}$/.test(before) || scope !== scopeOf(organizationId, groupApiId)) {
    return null;
  }
  const beforeId = Number(before);
  return Number.isSafeInteger(beforeId) ? beforeId : null;
}
