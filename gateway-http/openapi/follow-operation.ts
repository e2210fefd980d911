import { PLAIN_PAGE_CONTENT_SECURITY_POLICY } from '../plain-page';
import { BACKEND_RETRY_AFTER_SECONDS } from '../../core';
import { DEFAULT_CHANGE_PROPAGATION_SECONDS } from '../../core/caches/cached-store';
import { REDIRECT_TYPES } from '../../core/links/link-field-limits';
import { DEFAULT_FOLLOW_MISSES_PER_MINUTE } from '../../core/rate-limit/limits';
import { DEFAULT_REDIRECT_CACHE_MAX_AGE } from '../http-config';
import { LINK_EXPIRED_PAGE, LINK_GONE_PAGE } from '../link-gone-page';
import { ERROR_DESCRIPTIONS, errorContent, notFound } from './error-responses';
import { REQUEST_ID_HEADER, retryAfter, withRequestId } from './headers';

/** Following a link (`GET` and `HEAD /{alias}`): its redirects and every refusal. */

/** What following answers when the link cannot be looked up: the store's own failures. */
const followFailures = {
  '500': withRequestId(ERROR_DESCRIPTIONS[500], errorContent(['INTERNAL'])),
  '503': {
    description: 'The store is unavailable (code 23).',
    headers: {
      'X-Request-Id': REQUEST_ID_HEADER,
      ...retryAfter(
        true,
        `Seconds to wait before retrying: ${BACKEND_RETRY_AFTER_SECONDS} when the store cannot be reached.`,
      ),
    },
    content: errorContent(['BACKEND_UNAVAILABLE']),
  },
};

/**
 * A client address past its budget of unknown aliases (RATE_LIMITED): the JSON error body, as a 404
 * of following has, with Retry-After; no rate-limit headers (they describe a token's budget).
 */
const tooManyMisses = {
  description: `The client address (IPv6: its /64; behind TRUST_PROXY, the forwarded client) is past its budget of unknown aliases (code 19): FOLLOW_MISSES_PER_MINUTE, ${DEFAULT_FOLLOW_MISSES_PER_MINUTE} by default, shared with gRPC ResolveShortLink. Until its window resets, its follows are refused without a lookup, except of a link this process holds in its link cache (one followed in the last few seconds), which still answers.`,
  headers: {
    'X-Request-Id': REQUEST_ID_HEADER,
    ...retryAfter(true, "Seconds until the address's window resets."),
  },
  content: errorContent(['RATE_LIMITED'], {
    RATE_LIMITED: 'Too many unknown short links from this address; slow down.',
  }),
};

/**
 * A link that must not be followed (LINK_DISABLED, LINK_EXPIRED): the same answer for every reason
 * of a code, in JSON or as an HTML page by the Accept header (see link-gone.ts).
 */
const linkGone = {
  description:
    'The link is not followed. Code 28: it is disabled, its organization is inactive, or its target now fails the local anti-phishing rules. Code 30: it is past its expires_at, or it has redirected max_visits times. The same answer whatever the reason within a code, with no Location and never the target URL: the JSON error body when the Accept header prefers application/json to text/html, otherwise (no Accept header included) a small HTML page.',
  headers: {
    'X-Request-Id': REQUEST_ID_HEADER,
    'Cache-Control': {
      description:
        'Never stored: the link answers again as soon as it is enabled or its limits are raised.',
      required: true,
      schema: { type: 'string', const: 'no-store' },
    },
    Vary: {
      description: 'The body depends on the Accept header.',
      required: true,
      schema: { type: 'string', const: 'Accept' },
    },
    'X-Content-Type-Options': {
      description: 'The body is only ever what its Content-Type says.',
      required: true,
      schema: { type: 'string', const: 'nosniff' },
    },
    'Content-Security-Policy': {
      description: 'On the HTML page: it may load and run nothing (its one inline style by hash).',
      required: false,
      schema: { type: 'string', const: PLAIN_PAGE_CONTENT_SECURITY_POLICY },
    },
  },
  content: {
    ...errorContent(['LINK_DISABLED', 'LINK_EXPIRED']),
    'text/html': {
      schema: { type: 'string' },
      examples: {
        page: { summary: 'Code 28: the page, in UTF-8', value: LINK_GONE_PAGE },
        expired: { summary: 'Code 30: the page, in UTF-8', value: LINK_EXPIRED_PAGE },
      },
    },
  },
};

function redirectResponses(): Record<string, unknown> {
  return Object.fromEntries(
    REDIRECT_TYPES.map((status) => [
      String(status),
      {
        description: `The link's redirect status is ${status}.`,
        headers: {
          'X-Request-Id': REQUEST_ID_HEADER,
          Location: {
            description: 'The long URL.',
            required: true,
            schema: { type: 'string' },
          },
          'Cache-Control': {
            description: `301 and 308: \`private, max-age=<REDIRECT_CACHE_MAX_AGE>\` (${DEFAULT_REDIRECT_CACHE_MAX_AGE} s by default), or the whole seconds left until the link's expires_at when fewer; a browser may answer the redirect from its cache that long. 302, 303, 307, and any link with max_visits: \`no-store\`.`,
            required: true,
            schema: { type: 'string' },
          },
        },
      },
    ]),
  );
}

export function followOperation(operationId: string, summary: string) {
  return {
    tags: ['links'],
    operationId,
    summary,
    description: `Asked on a host that is an organization's link domain (the Host header names it): answers with the link's redirect, or 410 when the link must not be followed (code 28) or has expired, by date or by visits (code 30). A GET that redirects counts one visit against the link's max_visits, exactly across processes; a HEAD counts none. Needs no credentials. A disable, an enable or an organization's deactivation is seen by every process within CHANGE_PROPAGATION_SECONDS (${DEFAULT_CHANGE_PROPAGATION_SECONDS} s by default). Unknown aliases (404, code 24) are limited per client address: past FOLLOW_MISSES_PER_MINUTE (${DEFAULT_FOLLOW_MISSES_PER_MINUTE}) in a minute, 429 (code 19).`,
    parameters: [
      {
        name: 'alias',
        in: 'path',
        required: true,
        description: 'The alias (case-sensitive).',
        schema: { type: 'string' },
      },
    ],
    responses: {
      ...redirectResponses(),
      '404': notFound,
      '410': linkGone,
      '429': tooManyMisses,
      ...followFailures,
    },
  };
}
