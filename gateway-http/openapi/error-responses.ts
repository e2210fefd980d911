import {
  BACKEND_RETRY_AFTER_SECONDS,
  ERROR_CATALOGUE,
  ERROR_REASONS,
  ErrorCode,
  type ErrorReason,
} from '../../core';
import { MAX_BODY_BYTES } from '../body-decoding';
import { HTTP_STATUS_BY_REASON } from '../status-by-reason';
import { exampleMessage } from './error-examples';
import {
  IDEMPOTENT_REPLAYED_HEADER,
  rateLimitHeaders,
  REQUEST_ID_HEADER,
  retryAfter,
  withRequestId,
} from './headers';
import { envelopeSchema } from './schemas';

/**
 * The error answers of the document, from the error catalogue (codes, example messages, flags)
 * and the REST status table.
 */

export const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'The Idempotency-Key header is malformed (code 27), or the body is not valid JSON or not a JSON object (code 20).',
  409: 'A request with the same Idempotency-Key is still running (code 26); retry after Retry-After seconds.',
  401: 'Authentication failed: header missing (3) or malformed (10), token unknown (11), organization key unknown (12), organization inactive (13), not a member (17).',
  404: 'No such endpoint, or no short link with this alias (code 24).',
  405: 'Method not allowed (code 2).',
  413: `The body is larger than ${MAX_BODY_BYTES / 1024} KiB (code 22).`,
  415: 'Content-Type is not application/json, its charset is not UTF-8, UTF-16 or UTF-32, or its Content-Encoding is not gzip, deflate or br (code 21).',
  422: 'A field is missing or invalid (4-9, 14-16, 31, 32), the URL is refused by the anti-phishing check (18), or the Idempotency-Key was already used for a different request (25).',
  429: 'Rate limit exceeded (code 19): per token, or per client address for failed token checks.',
  500: 'Unexpected error (code 1).',
  503: 'Storage or rate-limit backend unavailable, or the reputation lookup quota used up (code 23).',
};

/**
 * Codes REST never answers: ARGUMENT_INVALID and LINK_HELD are refusals of the procedures that
 * read and govern links, which REST does not serve (the core and gRPC do). status-by-reason.ts
 * still maps them, by their meaning, because every code must have a status; no operation here
 * lists them.
 */
export const NEVER_ON_REST: ReadonlySet<ErrorReason> = new Set(['ARGUMENT_INVALID', 'LINK_HELD']);

/**
 * Codes a create never answers: besides those never on REST, METHOD_NOT_ALLOWED and NOT_FOUND are
 * the answers to another method on /api/create and to an unknown endpoint, and LINK_DISABLED and
 * LINK_EXPIRED are following's.
 */
const NOT_FROM_CREATE: ReadonlySet<ErrorReason> = new Set([
  ...NEVER_ON_REST,
  'METHOD_NOT_ALLOWED',
  'NOT_FOUND',
  'LINK_DISABLED',
  'LINK_EXPIRED',
]);

const createReasons = ERROR_REASONS.filter((reason) => !NOT_FROM_CREATE.has(reason));

function createReasonsWithStatus(status: number): ErrorReason[] {
  return createReasons.filter((reason) => HTTP_STATUS_BY_REASON[reason] === status);
}

/**
 * `{data: null, code, errors}` for the given codes, with one example per code: the catalogue's,
 * or the one `examples` gives where an operation answers the code with its own message.
 */
export function errorContent(
  only: readonly ErrorReason[],
  examples: Partial<Record<ErrorReason, string>> = {},
) {
  return {
    'application/json': {
      schema: envelopeSchema({
        data: { type: 'null' },
        code: { type: 'integer', enum: only.map((reason) => ErrorCode[reason]) },
        errors: { type: 'array', minItems: 1, items: { type: 'string' } },
      }),
      examples: Object.fromEntries(
        only.map((reason) => [
          `code${ErrorCode[reason]}`,
          {
            summary: `${ErrorCode[reason]}: ${reason}`,
            value: {
              data: null,
              code: ErrorCode[reason],
              errors: [examples[reason] ?? exampleMessage(reason)],
            },
          },
        ]),
      ),
    },
  };
}

/** Whether every create answer with this status has the catalogue's `flag`, or some answer has. */
const every = (status: number, flag: 'afterTokenCheck') =>
  createReasonsWithStatus(status).every((reason) => ERROR_CATALOGUE[reason][flag]);
const some = (status: number, flag: 'recorded' | 'retryAfter') =>
  createReasonsWithStatus(status).some((reason) => ERROR_CATALOGUE[reason][flag]);

/** What Retry-After means on the answers of each code the catalogue marks `retryAfter`. */
const RETRY_AFTER_MEANING: Partial<Record<ErrorReason, string>> = {
  RATE_LIMITED: 'Seconds until a retry can succeed.',
  IDEMPOTENCY_KEY_IN_USE: 'Seconds to wait before retrying with the same key.',
  BACKEND_UNAVAILABLE: `Seconds to wait before retrying: ${BACKEND_RETRY_AFTER_SECONDS} when the store or a rate-limit backend cannot be reached; when the reputation lookup quota is used up, until it refills.`,
};

function retryAfterOf(status: number) {
  const meanings = createReasonsWithStatus(status)
    .filter((reason) => ERROR_CATALOGUE[reason].retryAfter)
    .map((reason) => RETRY_AFTER_MEANING[reason] ?? 'Seconds until a retry can succeed.');
  return retryAfter(true, meanings.join(' '));
}

export function createErrorResponses(): Record<string, unknown> {
  const statuses = [...new Set(createReasons.map((reason) => HTTP_STATUS_BY_REASON[reason]))].sort(
    (a, b) => a - b,
  );
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: ERROR_DESCRIPTIONS[status] ?? `Error ${status}.`,
        headers: {
          'X-Request-Id': REQUEST_ID_HEADER,
          ...rateLimitHeaders(every(status, 'afterTokenCheck')),
          ...(some(status, 'retryAfter') ? retryAfterOf(status) : {}),
          ...(some(status, 'recorded') ? IDEMPOTENT_REPLAYED_HEADER : {}),
        },
        content: errorContent(createReasonsWithStatus(status)),
      },
    ]),
  );
}

export const notFound = withRequestId(ERROR_DESCRIPTIONS[404], errorContent(['NOT_FOUND']));

/**
 * 405 (METHOD_NOT_ALLOWED), for any method but POST on /api/create. Not an operation: the document
 * lists the methods a path serves, and /api/create serves POST alone, as its `Allow: POST` says;
 * its description says so (UNLISTED_REQUESTS), and the tests check such answers against this.
 */
export const methodNotAllowed = {
  description: `${ERROR_DESCRIPTIONS[405]} Any method but POST on /api/create; no body on a HEAD.`,
  headers: {
    'X-Request-Id': REQUEST_ID_HEADER,
    Allow: { description: 'The allowed method.', required: true, schema: { const: 'POST' } },
  },
  content: errorContent(['METHOD_NOT_ALLOWED']),
};
