import { toLinkView } from '../links/link-view';
import type { LinkRecord } from '../ports/link-store';

/**
 * A link as the operator sees it: what `links.get` answers a member (the spec's fields, group,
 * state, times, and while disabled the reason, time and who), plus whose it is: its organization
 * and the user who created it, since the CLI serves every organization.
 */
export function linkJson(link: LinkRecord): Record<string, unknown> {
  const { id, short_url, url, domain, alias, redirect_type, url_group_id, ...rest } =
    toLinkView(link);
  return {
    id,
    short_url,
    url,
    domain,
    alias,
    redirect_type,
    organization_id: link.organizationId,
    url_group_id,
    user_id: link.userId,
    // state, created_at, and disabled_reason, disabled_at and disabled_by while disabled.
    ...rest,
  };
}
