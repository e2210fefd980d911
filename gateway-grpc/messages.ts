import type {
  Core,
  CreateLinkField,
  LinkVisitsView,
  PublicLinkView,
  ShortLink as CoreShortLink,
  VisitCountsView,
} from '../core';
import {
  LinkChangeKind,
  LinkState,
  type CreateShortLinkRequest,
  type DisableShortLinkRequest,
  type GetShortLinkRequest,
  type GetShortLinkVisitsRequest,
  type GetShortLinkVisitsResponse,
  type VisitCounts,
  type LinkHistoryEntry,
  type ListShortLinkHistoryRequest,
  type ListShortLinksRequest,
  type ShortLink,
  type UpdateShortLinkRequest,
} from './generated/shortlink/v1/shortlink';

/** A link as links.get, list, disable and enable answer it (core/links/link-view.ts). */
type LinkView = Awaited<ReturnType<ReturnType<Core['createUntypedCaller']>['links']['get']>>;

/**
 * The REST body the request stands for. proto3 cannot tell an absent field from its default, so
 * the defaults are passed as what they mean: empty strings stay empty (the core reads "" as
 * missing, and an empty alias as "generate one") and redirect_type 0 becomes absent (the default
 * redirect). Everything else reaches the core unchanged: the core validates it.
 */
export function toCreateBody(request: CreateShortLinkRequest): Record<CreateLinkField, unknown> {
  return {
    organization_key: request.organizationKey,
    url_group_id: request.urlGroupId,
    url: request.url,
    alias: request.alias,
    redirect_type: request.redirectType === 0 ? undefined : request.redirectType,
    // proto3 optional fields: undefined when unset (never), as sent when set ("" and 0 included,
    // which the core refuses).
    expires_at: request.expiresAt,
    max_visits: request.maxVisits,
  };
}

/** proto3's "not set" (0, "") as absent; any other value reaches the core, which judges it. */
function given<T>(value: T, unset: T): T | undefined {
  return value === unset ? undefined : value;
}

/**
 * The core's arguments naming one link (links.get, links.enable): id 0 and an empty alias are
 * proto3's "not set". The organization key stays as sent: the core reads "" as missing
 * (ORGANIZATION_KEY_MISSING).
 */
export function toLinkReferenceBody(request: GetShortLinkRequest): Record<string, unknown> {
  return {
    organization_key: request.organizationKey,
    id: given(request.id, 0),
    alias: given(request.alias, ''),
  };
}

/** links.disable's arguments: the link, and the reason ("" is no reason, as absent). */
export function toDisableBody(request: DisableShortLinkRequest): Record<string, unknown> {
  return { ...toLinkReferenceBody(request), reason: given(request.reason, '') };
}

/** links.list's arguments: "" group and token and page_size 0 are proto3's "not set". */
export function toListBody(request: ListShortLinksRequest): Record<string, unknown> {
  return {
    organization_key: request.organizationKey,
    url_group_id: given(request.urlGroupId, ''),
    page_size: given(request.pageSize, 0),
    page_token: given(request.pageToken, ''),
  };
}

/**
 * links.update's arguments: the field mask's paths as the core's `update_mask`, and each field as
 * sent. proto3's "not set" is passed as absent (redirect_type 0, an unset expires_at or
 * max_visits), which for a field the mask names the core reads as null: the default redirect, no
 * expiry, no limit. The core judges the paths and the values.
 */
export function toUpdateBody(request: UpdateShortLinkRequest): Record<string, unknown> {
  return {
    ...toLinkReferenceBody(request),
    update_mask: request.updateMask ?? [],
    url: request.url,
    redirect_type: given(request.redirectType, 0),
    expires_at: request.expiresAt,
    max_visits: request.maxVisits,
  };
}

/** links.history's arguments: the link, and page_size 0 and "" token as proto3's "not set". */
export function toHistoryBody(request: ListShortLinkHistoryRequest): Record<string, unknown> {
  return {
    ...toLinkReferenceBody(request),
    page_size: given(request.pageSize, 0),
    page_token: given(request.pageToken, ''),
  };
}

/** links.visits's arguments: days 0 is proto3's "not set". */
export function toVisitsBody(request: GetShortLinkVisitsRequest): Record<string, unknown> {
  return { ...toLinkReferenceBody(request), days: given(request.days, 0) };
}

function toVisitCounts(counts: VisitCountsView): VisitCounts {
  return { visits: counts.visits, humans: counts.humans, bots: counts.bots };
}

/** links.visits's answer as GetShortLinkVisitsResponse. */
export function toVisitsMessage(view: LinkVisitsView): GetShortLinkVisitsResponse {
  return {
    linkId: view.link_id,
    totals: toVisitCounts(view.totals),
    days: view.days.map((day) => ({ day: day.day, counts: toVisitCounts(day) })),
  };
}

/** An entry of a link's history as links.history answers it. */
type HistoryView = Awaited<
  ReturnType<ReturnType<Core['createUntypedCaller']>['links']['history']>
>['entries'][number];

const CHANGE_KINDS: Record<HistoryView['kind'], LinkChangeKind> = {
  created: LinkChangeKind.LINK_CHANGE_KIND_CREATED,
  updated: LinkChangeKind.LINK_CHANGE_KIND_UPDATED,
  disabled: LinkChangeKind.LINK_CHANGE_KIND_DISABLED,
  enabled: LinkChangeKind.LINK_CHANGE_KIND_ENABLED,
};

/** A history entry: a value that is none (no expiry, no limit) stays unset. */
export function toHistoryEntryMessage(entry: HistoryView): LinkHistoryEntry {
  return {
    kind: CHANGE_KINDS[entry.kind],
    at: new Date(entry.at),
    by: entry.by,
    reason: entry.reason ?? '',
    changes: (entry.changes ?? []).map((change) => ({
      field: change.field,
      oldValue: change.from ?? undefined,
      newValue: change.to ?? undefined,
    })),
  };
}

const LINK_STATES: Record<LinkView['state'], LinkState> = {
  active: LinkState.LINK_STATE_ACTIVE,
  disabled: LinkState.LINK_STATE_DISABLED,
};

/** A link's public fields; the rest stay proto3's "not set" (id 0, no state, no times). */
export function toPublicLinkMessage(link: PublicLinkView): ShortLink {
  return {
    id: 0,
    shortUrl: link.short_url,
    url: link.url,
    domain: link.domain,
    alias: link.alias,
    redirectType: link.redirect_type,
    state: LinkState.LINK_STATE_UNSPECIFIED,
    createdAt: undefined,
    urlGroupId: '',
    disabledReason: '',
    disabledAt: undefined,
    disabledBy: '',
    expiresAt: undefined,
    maxVisits: undefined,
    visitCount: undefined,
  };
}

/** The spec's six fields; the rest stay proto3's "not set" unless a LinkView fills them. */
function baseMessage(link: CoreShortLink): ShortLink {
  return { ...toPublicLinkMessage(link), id: link.id };
}

/**
 * A created link: the core answers the spec's six fields. A link is active when it is created,
 * so the state is known; its creation time and group are not in the answer and stay unset.
 */
export function toCreatedLinkMessage(link: CoreShortLink): ShortLink {
  return { ...baseMessage(link), state: LinkState.LINK_STATE_ACTIVE };
}

const timeOf = (text: string | undefined) => (text === undefined ? undefined : new Date(text));

/**
 * A link as the reading and governing procedures answer it, every field filled:
 * one entry per field of LinkView (a field added there fails the compiler here until the message
 * carries it), each giving its message field's value.
 */
const MESSAGE_FIELDS = {
  id: (link) => ({ id: link.id }),
  short_url: (link) => ({ shortUrl: link.short_url }),
  url: (link) => ({ url: link.url }),
  domain: (link) => ({ domain: link.domain }),
  alias: (link) => ({ alias: link.alias }),
  redirect_type: (link) => ({ redirectType: link.redirect_type }),
  url_group_id: (link) => ({ urlGroupId: link.url_group_id }),
  state: (link) => ({ state: LINK_STATES[link.state] }),
  created_at: (link) => ({ createdAt: new Date(link.created_at) }),
  disabled_reason: (link) => ({ disabledReason: link.disabled_reason ?? '' }),
  disabled_at: (link) => ({ disabledAt: timeOf(link.disabled_at) }),
  disabled_by: (link) => ({ disabledBy: link.disabled_by ?? '' }),
  expires_at: (link) => ({ expiresAt: timeOf(link.expires_at) }),
  max_visits: (link) => ({ maxVisits: link.max_visits }),
  visit_count: (link) => ({ visitCount: link.visit_count }),
} satisfies Record<keyof Required<LinkView>, (link: LinkView) => Partial<ShortLink>>;

export function toShortLinkMessage(link: LinkView): ShortLink {
  const message = baseMessage(link);
  for (const field of Object.values(MESSAGE_FIELDS)) Object.assign(message, field(link));
  return message;
}
