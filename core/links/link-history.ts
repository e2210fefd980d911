import { ShortlinkError } from '../errors/shortlink-error';
import { argumentsError, argumentsSchema, governingProcedure } from './governing-procedure';
import { historyPage } from './history-pages';
import type { LinkHistoryView } from './history-view';
import { findLinkOf, readLinkReference, type LinkReference } from './link-reference';
import { PAGE_TOKEN_FOREIGN, readPageSize, readPageToken } from './page-arguments';
import { decodeHistoryToken, encodeHistoryToken } from './page-token';

/** What an in-process caller passes to `links.history`. */
export interface LinkHistoryRequest {
  organization_key: string;
  id?: number | string | null;
  alias?: string | null;
  /** 1 to 100; absent, null or 0: 50. */
  page_size?: number | null;
  /** `next_page_token` of the previous page; absent, null or "": the first page. */
  page_token?: string | null;
}

export interface LinkHistoryPage {
  /** Oldest first: created, then every edit, disable and enable. */
  entries: LinkHistoryView[];
  /** Give it as `page_token` for the next page; "" when this page is the last. */
  next_page_token: string;
}

interface HistoryArguments {
  reference: LinkReference;
  pageSize: number;
  pageToken: string | undefined;
}

const historyArguments = argumentsSchema<HistoryArguments>((body) => {
  const reference = readLinkReference(body);
  const pageSize = readPageSize(body);
  const pageToken = readPageToken(body);
  if (
    typeof reference === 'string' ||
    typeof pageSize !== 'number' ||
    typeof pageToken === 'object'
  ) {
    return {
      problems: [
        ...(typeof reference === 'string' ? [reference] : []),
        ...(typeof pageSize === 'number' ? [] : [pageSize.problem]),
        ...(typeof pageToken === 'object' ? [pageToken.problem] : []),
      ],
    };
  }
  return { reference, pageSize, pageToken };
});

/**
 * `links.history`: one page of a link's history, oldest first. The first entry, `created`, is
 * the link's own creation; then every edit, disable and enable the store kept, none ever erased.
 * The page token is bound to the organization and the link.
 */
export const linkHistory = governingProcedure
  .input(historyArguments, argumentsError)
  .query(async ({ ctx, input }): Promise<LinkHistoryPage> => {
    const { organization } = ctx;
    const link = await findLinkOf(ctx.deps.store.links, organization, input.reference);
    let from = 0;
    if (input.pageToken !== undefined) {
      const decoded = decodeHistoryToken(input.pageToken, organization.id, link.id);
      if (decoded === null) throw new ShortlinkError('ARGUMENT_INVALID', PAGE_TOKEN_FOREIGN);
      from = decoded;
    }
    const page = await historyPage(ctx.deps.store.links, link, from, input.pageSize);
    return {
      entries: page.entries,
      next_page_token: page.more ? encodeHistoryToken(page.next, organization.id, link.id) : '',
    };
  });
