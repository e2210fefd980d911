import { ShortlinkError } from '../errors/shortlink-error';
import { MAX_ID_LENGTH } from '../ports/identity-store';
import { positionOf, type LinkPosition } from '../ports/link-store';
import { isAbsent, ownField } from '../procedure/raw-input';
import { groupNotFound, urlGroupIdSchema } from '../organizations/resolve-group';
import { argumentsError, argumentsSchema, governingProcedure } from './governing-procedure';
import { visitCountsOf } from './link-visit-counts';
import { toLinkView, type LinkView } from './link-view';
import { decodePageToken, encodePageToken } from './page-token';
import { PAGE_TOKEN_FOREIGN, readPageSize, readPageToken } from './page-arguments';

/** What an in-process caller passes to `links.list`. */
export interface ListLinksRequest {
  organization_key: string;
  /** One URL group's links; absent, null or "": the whole organization's. */
  url_group_id?: string | number | null;
  /** 1 to 100; absent, null or 0: 50. */
  page_size?: number | null;
  /** `next_page_token` of the previous page; absent, null or "": the first page. */
  page_token?: string | null;
}

export interface LinkPage {
  /** Newest first: by creation time, then id. */
  links: LinkView[];
  /** Give it as `page_token` for the next page; "" when this page is the last. */
  next_page_token: string;
}

interface ListArguments {
  groupApiId: string | undefined;
  pageSize: number;
  pageToken: string | undefined;
}

const listArguments = argumentsSchema<ListArguments>((body) => {
  const problems: string[] = [];
  const rawGroup = ownField(body, 'url_group_id');
  let groupApiId: string | undefined;
  if (!isAbsent(rawGroup)) {
    const group = urlGroupIdSchema.safeParse(rawGroup);
    if (group.success) groupApiId = group.data;
    else problems.push('url_group_id must be a non-empty string or a non-negative integer.');
  }
  const pageSize = readPageSize(body);
  if (typeof pageSize !== 'number') problems.push(pageSize.problem);
  const pageToken = readPageToken(body);
  if (typeof pageToken === 'object') problems.push(pageToken.problem);
  if (typeof pageSize !== 'number' || typeof pageToken === 'object') return { problems };
  return problems.length > 0 ? { problems } : { groupApiId, pageSize, pageToken };
});

/**
 * `links.list`: one page of the organization's links (or one URL group's), newest first (by
 * creation time, then id), each with its visit total (one visit store read for the page). The
 * page token carries the last link's creation time and id, which the next page starts after, so
 * paging repeats and misses nothing that existed when the listing began, whatever is created
 * meanwhile.
 */
export const listLinks = governingProcedure
  .input(listArguments, argumentsError)
  .query(async ({ ctx, input }): Promise<LinkPage> => {
    const { organization } = ctx;
    const { groupApiId, pageSize, pageToken } = input;
    let before: LinkPosition | undefined;
    if (pageToken !== undefined) {
      const decoded = decodePageToken(pageToken, organization.id, groupApiId);
      if (decoded === null) {
        throw new ShortlinkError('ARGUMENT_INVALID', PAGE_TOKEN_FOREIGN);
      }
      if ('after' in decoded) before = decoded.after;
      else {
        // A token of the listing by id: it goes on after that link, wherever it now sorts.
        const link = await ctx.deps.store.links.findById(decoded.afterLinkId);
        if (!link || link.organizationId !== organization.id) {
          throw new ShortlinkError('ARGUMENT_INVALID', PAGE_TOKEN_FOREIGN);
        }
        before = positionOf(link);
      }
    }
    if (groupApiId !== undefined) {
      const group =
        groupApiId.length > MAX_ID_LENGTH
          ? null
          : await ctx.deps.store.identities.findGroup(organization.id, groupApiId);
      if (!group) throw groupNotFound();
    }
    // One more than the page: whether another page follows, without a second read.
    const found = await ctx.deps.store.links.list({
      organizationId: organization.id,
      ...(groupApiId !== undefined && { groupApiId }),
      ...(before !== undefined && { before }),
      limit: pageSize + 1,
    });
    const page = found.slice(0, pageSize);
    const last = page[page.length - 1];
    // The page's visit totals in one read, not one per link.
    const counts = await visitCountsOf(
      ctx.deps.store.visits,
      page.map((link) => link.id),
    );
    return {
      links: page.map((link) => toLinkView(link, counts.get(link.id))),
      next_page_token:
        found.length > pageSize && last
          ? encodePageToken(positionOf(last), organization.id, groupApiId)
          : '',
    };
  });
