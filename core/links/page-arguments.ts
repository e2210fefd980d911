import { isAbsent, ownField } from '../procedure/raw-input';

/** The page arguments of every paged reading (links.list, links.history), read the same way. */

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

/** `page_size`: 1 to 100; absent, null or 0 (proto3's "not set"): 50. Else what is wrong. */
export function readPageSize(body: unknown): number | { problem: string } {
  const raw = ownField(body, 'page_size');
  if (isAbsent(raw) || raw === 0) return DEFAULT_PAGE_SIZE;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 && raw <= MAX_PAGE_SIZE) {
    return raw;
  }
  return { problem: `page_size must be a whole number from 1 to ${MAX_PAGE_SIZE}.` };
}

/** `page_token`: a string; absent, null or "": the first page. Else what is wrong. */
export function readPageToken(body: unknown): string | undefined | { problem: string } {
  const raw = ownField(body, 'page_token');
  if (isAbsent(raw)) return undefined;
  return typeof raw === 'string' ? raw : { problem: 'page_token must be a string.' };
}

/** The refusal of a page token that another reading gave (or nobody). */
export const PAGE_TOKEN_FOREIGN =
  'page_token was not given by this listing: start again without one.';
