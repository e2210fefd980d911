import type { LinkRecord, RedirectType } from '../ports/link-store';

/** A created or resolved link, as every transport returns it (the spec's `data`). */
export interface ShortLink {
  id: number;
  short_url: string;
  url: string;
  domain: string;
  alias: string;
  redirect_type: RedirectType;
}

export function toShortLink(link: LinkRecord): ShortLink {
  return {
    id: link.id,
    short_url: `${link.scheme}://${link.domain}/${link.alias}`,
    url: link.url,
    domain: link.domain,
    alias: link.alias,
    redirect_type: link.redirectType,
  };
}
