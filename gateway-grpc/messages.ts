import type { ShortLink as CoreShortLink } from '../core';
import type { CreateShortLinkRequest, ShortLink } from './generated/shortlink/v1/shortlink';

/**
 * The REST body the request stands for. proto3 cannot tell an absent field from its default, so
 * the defaults are passed as what they mean: empty strings stay empty (the core reads "" as
 * missing, and an empty alias as "generate one") and redirect_type 0 becomes absent (the default
 * redirect). Everything else reaches the core unchanged: the core validates it.
 */
export function toCreateBody(request: CreateShortLinkRequest): Record<string, unknown> {
  return {
    organization_key: request.organizationKey,
    url_group_id: request.urlGroupId,
    url: request.url,
    alias: request.alias,
    redirect_type: request.redirectType === 0 ? undefined : request.redirectType,
  };
}

export function toShortLinkMessage(link: CoreShortLink): ShortLink {
  return {
    id: link.id,
    shortUrl: link.short_url,
    url: link.url,
    domain: link.domain,
    alias: link.alias,
    redirectType: link.redirect_type,
  };
}
