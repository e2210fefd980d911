import type { WithId } from 'mongodb';
import type { EveryField, LinkRecord } from '../../ports/link-store';
import { withoutAbsent } from '../../links/link-shape';
import type { LinkDocument } from './documents';

/**
 * A link's fields as the document holds them, every field named (EveryField): a field added to
 * LinkRecord fails the compiler here until the document has it. The bookkeeping fields
 * (`revision`, `lastChange`) are the change's own, not the link's.
 */
export function toLinkFields(link: LinkRecord): Omit<LinkDocument, 'revision' | 'lastChange'> {
  const { disabled } = link;
  const fields: EveryField<Omit<LinkDocument, 'revision' | 'lastChange'>> = {
    _id: link.id,
    domain: link.domain,
    alias: link.alias,
    url: link.url,
    redirectType: link.redirectType,
    scheme: link.scheme,
    organizationId: link.organizationId,
    groupApiId: link.groupApiId,
    userId: link.userId,
    createdAt: link.createdAt,
    disabled: disabled && { reason: disabled.reason, at: disabled.at, by: disabled.by },
    expiresAt: link.expiresAt,
    maxVisits: link.maxVisits,
    visits: link.visits,
  };
  return withoutAbsent(fields);
}

export function toLinkRecord(document: WithId<LinkDocument>): LinkRecord {
  const { disabled } = document;
  const fields: EveryField<LinkRecord> = {
    id: document._id,
    domain: document.domain,
    alias: document.alias,
    url: document.url,
    redirectType: document.redirectType,
    scheme: document.scheme,
    organizationId: document.organizationId,
    groupApiId: document.groupApiId,
    userId: document.userId,
    createdAt: document.createdAt,
    disabled: disabled && { reason: disabled.reason, at: disabled.at, by: disabled.by },
    expiresAt: document.expiresAt ?? undefined,
    maxVisits: document.maxVisits ?? undefined,
    visits: document.maxVisits == null ? undefined : (document.visits ?? 0),
  };
  return withoutAbsent(fields);
}
