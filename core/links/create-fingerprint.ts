import { hash } from 'node:crypto';
import { hashSecret } from '../auth/secrets';
import { redirectTypeSchema, type CreateLinkField } from './create-link-input';
import { expiresAtSchema, maxVisitsSchema } from './expiry-fields';
import { urlGroupIdSchema } from '../organizations/resolve-group';
import { isAbsent, isPlainObject, ownField } from '../procedure/raw-input';

/** Object keys sorted at every level, so a value's JSON does not depend on key order. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`;
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * A value no later stage could normalise (it fails there), tagged so it never equals a
 * normalised string. Unserialisable values (cycles) are told apart only by their type.
 */
function raw(value: unknown): { raw: string } {
  try {
    return { raw: JSON.stringify(value, sortedKeys) ?? typeof value };
  } catch {
    return { raw: `unserialisable ${typeof value}` };
  }
}

/**
 * What a create request means, as a hash: the organization key's hash and url_group_id, url,
 * alias, redirect_type, expires_at and max_visits read as their stages read them. Absent, null and "" are alike where
 * those stages treat them alike (organization_key, url_group_id, url, alias); url is trimmed; a
 * numeric url_group_id equals its decimal string; an absent or null redirect_type equals the
 * default one given explicitly ("" is not absent there: that stage refuses it). REST and gRPC requests with the same fields therefore match, and JSON key order
 * or whitespace never matters (the body is already decoded).
 */
export function requestFingerprint(body: unknown): string {
  const organizationKey = ownField(body, 'organization_key');
  const groupId = ownField(body, 'url_group_id');
  const url = ownField(body, 'url');
  const alias = ownField(body, 'alias');
  const redirectType = ownField(body, 'redirect_type');
  const group = urlGroupIdSchema.safeParse(groupId);
  const redirect = redirectTypeSchema.safeParse(redirectType);
  const trimmedUrl = typeof url === 'string' ? url.trim() : url;
  const limits = limitsMeaning(body);
  // One entry per field of the create body (a field added there fails the compiler here), put in
  // the order the fingerprint has always had.
  const parts = {
    organization_key: isAbsent(organizationKey)
      ? null
      : typeof organizationKey === 'string'
        ? hashSecret(organizationKey)
        : raw(organizationKey),
    url_group_id: isAbsent(groupId) ? null : group.success ? group.data : raw(groupId),
    url: isAbsent(trimmedUrl)
      ? null
      : typeof trimmedUrl === 'string'
        ? trimmedUrl
        : raw(trimmedUrl),
    alias: isAbsent(alias) ? null : typeof alias === 'string' ? alias : raw(alias),
    redirect_type: redirect.success ? redirect.data : raw(redirectType),
    expires_at: limits?.expires_at,
    max_visits: limits?.max_visits,
  } satisfies Record<CreateLinkField, unknown>;
  const meaning = [
    parts.organization_key,
    parts.url_group_id,
    parts.url,
    parts.alias,
    parts.redirect_type,
    ...(limits ? [parts.expires_at, parts.max_visits] : []),
  ];
  return hash('sha256', JSON.stringify(meaning), 'hex');
}

/**
 * The meaning of expires_at and max_visits, appended only when one of them is given (not absent,
 * not null, which mean none): a request without them has the fingerprint it had before they
 * existed, so records stored then still replay. expires_at means its instant, as the link stores
 * it (UTC, to the millisecond): the same instant in another offset is the same request. "" is
 * not absent there (that stage refuses it).
 */
function limitsMeaning(body: unknown): { expires_at: unknown; max_visits: unknown } | null {
  const expiresAt = ownField(body, 'expires_at');
  const maxVisits = ownField(body, 'max_visits');
  const none = (value: unknown) => value === undefined || value === null;
  if (none(expiresAt) && none(maxVisits)) return null;
  const expiry = expiresAtSchema.safeParse(expiresAt);
  const limit = maxVisitsSchema.safeParse(maxVisits);
  return {
    expires_at: expiry.success ? (expiry.data?.toISOString() ?? null) : raw(expiresAt),
    max_visits: limit.success ? (limit.data ?? null) : raw(maxVisits),
  };
}
