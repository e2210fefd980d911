import { z } from 'zod';
import { ShortlinkError } from '../errors/shortlink-error';
import type { Organization } from '../ports/identity-store';
import type { LinkRecord, LinkStore } from '../ports/link-store';
import { isAbsent, ownField } from '../procedure/raw-input';
import { isAlias } from './create-link-input';

/**
 * Which link a reading or governing request names: `id` (a positive integer, or its decimal
 * digits) or `alias` (on the organization's own link domain), exactly one of them. Absent, null,
 * "" and, for id, 0 (proto3's "not set") mean not given.
 */
export type LinkReference = { id: number } | { alias: string };

const idSchema = z.union([
  z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  z
    .string()
    .regex(/^[1-9]\d{0,15}$/)
    .transform(Number)
    .refine((id) => Number.isSafeInteger(id)),
]);

export const argumentInvalid = (messages: string | readonly string[]) =>
  new ShortlinkError('ARGUMENT_INVALID', messages);

export const linkNotFound = () =>
  new ShortlinkError('NOT_FOUND', 'No short link with this id or alias in the organization.');

/** The reference in `body`, or the message saying what is wrong with it. */
export function readLinkReference(body: unknown): LinkReference | string {
  const rawId = ownField(body, 'id');
  const rawAlias = ownField(body, 'alias');
  const hasId = !isAbsent(rawId) && rawId !== 0;
  const hasAlias = !isAbsent(rawAlias);
  if (hasId === hasAlias) return 'Give either id or alias (one of them).';
  if (hasId) {
    const id = idSchema.safeParse(rawId);
    return id.success ? { id: id.data } : 'id must be a positive whole number.';
  }
  return typeof rawAlias === 'string' ? { alias: rawAlias } : 'alias must be a string.';
}

/**
 * The organization's link `reference` names, or NOT_FOUND: a link of another organization is
 * answered as one that does not exist, never as a hint that it does. An alias that breaks the alias
 * rules names no link (NOT_FOUND, without a lookup).
 */
export async function findLinkOf(
  links: LinkStore,
  organization: Organization,
  reference: LinkReference,
): Promise<LinkRecord> {
  let link: LinkRecord | null;
  if ('id' in reference) {
    link = await links.findById(reference.id);
  } else {
    link = isAlias(reference.alias)
      ? await links.findByAlias(organization.domain, reference.alias)
      : null;
  }
  if (!link || link.organizationId !== organization.id) throw linkNotFound();
  return link;
}
