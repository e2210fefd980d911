import {
  MAX_ALIAS_LENGTH,
  MAX_EXPIRY_YEARS,
  MAX_VISITS_LIMIT,
  REDIRECT_TYPES,
} from '../links/link-field-limits';

/** What the product knows about one error, whatever the transport. */
export interface ErrorEntry {
  /** The spec's numeric code, or the contract's extension of it. */
  readonly code: number;
  /**
   * The message a failing stage gives when it has nothing more precise to say (several stages
   * name the field, the limit or the rule instead), and the example the docs show.
   */
  readonly message: string;
  /**
   * Every answer with this code comes after the token was checked and counted, so it carries the
   * token's rate-limit state (REST: the `X-RateLimit-*` and `RateLimit*` headers).
   */
  readonly afterTokenCheck: boolean;
  /**
   * Recorded with an Idempotency-Key and replayed to a retry of the same request, which would
   * meet it again: the failures of the stages after the key is claimed. The organization stage's
   * (ORGANIZATION_KEY_MISSING, ORGANIZATION_KEY_INVALID, ORGANIZATION_INACTIVE, NOT_A_MEMBER) come
   * before the claim and are decided again on every request; the service's own (INTERNAL,
   * BACKEND_UNAVAILABLE) are not recorded, the key is released so that a retry may succeed.
   */
  readonly recorded: boolean;
  /** The answer says when a retry can succeed (REST `Retry-After`, gRPC `retry-after`). */
  readonly retryAfter: boolean;
  /** The service's fault rather than the caller's: worth an operator's log line. */
  readonly serverFault: boolean;
}

type ErrorFlag = keyof Omit<ErrorEntry, 'code' | 'message'>;

const entry = <Code extends number>(
  code: Code,
  message: string,
  flags: Partial<Record<ErrorFlag, boolean>> = {},
) =>
  ({
    code,
    message,
    afterTokenCheck: flags.afterTokenCheck ?? false,
    recorded: flags.recorded ?? false,
    retryAfter: flags.retryAfter ?? false,
    serverFault: flags.serverFault ?? false,
  }) as const;

const AFTER_TOKEN = { afterTokenCheck: true } as const;
const RECORDED = { afterTokenCheck: true, recorded: true } as const;

/**
 * The catalogue of every error the product can answer with: the spec's codes (INTERNAL to
 * RATE_LIMITED) and the contract's extensions. It is the one source of each code's name, number,
 * default message and flags; each transport maps the names to its statuses in one exhaustive table
 * (a new code does not compile until every transport maps it), and the docs' tables and examples
 * are checked against both.
 */
export const ERROR_CATALOGUE = {
  INTERNAL: entry(1, 'An unexpected error occurred.', { serverFault: true }),
  METHOD_NOT_ALLOWED: entry(2, 'Method not allowed; use POST.'),
  TOKEN_MISSING: entry(3, 'The Authorization header is missing.'),
  ORGANIZATION_KEY_MISSING: entry(4, 'organization_key is required.', AFTER_TOKEN),
  URL_GROUP_ID_MISSING: entry(5, 'url_group_id is required.', RECORDED),
  URL_MISSING: entry(6, 'url is required.', RECORDED),
  URL_INVALID: entry(
    7,
    'url must be an absolute http:// or https:// URL with a host and no spaces or control characters.',
    RECORDED,
  ),
  ALIAS_INVALID: entry(8, 'alias may contain only letters, digits, "_" and "-".', RECORDED),
  ALIAS_TOO_LONG: entry(9, `alias must be at most ${MAX_ALIAS_LENGTH} characters.`, RECORDED),
  TOKEN_MALFORMED: entry(10, 'The Authorization header must be "Bearer <token>".'),
  TOKEN_UNKNOWN: entry(11, 'The access token is unknown or revoked.'),
  ORGANIZATION_KEY_INVALID: entry(12, 'The organization key is invalid.', AFTER_TOKEN),
  ORGANIZATION_INACTIVE: entry(13, 'The organization is inactive.', AFTER_TOKEN),
  URL_GROUP_NOT_FOUND: entry(
    14,
    'No URL group with this url_group_id exists in the organization.',
    RECORDED,
  ),
  ALIAS_TAKEN: entry(15, 'This alias is already taken on this link domain.', RECORDED),
  REDIRECT_TYPE_INVALID: entry(
    16,
    `redirect_type must be one of ${REDIRECT_TYPES.join(', ')}.`,
    RECORDED,
  ),
  NOT_A_MEMBER: entry(
    17,
    'The access token does not belong to a member of this organization.',
    AFTER_TOKEN,
  ),
  URL_BLOCKED: entry(18, 'The URL was refused by the anti-phishing check.', RECORDED),
  RATE_LIMITED: entry(19, 'Too many requests; retry after the time this answer gives.', {
    retryAfter: true,
  }),
  BODY_INVALID: entry(20, 'The request body is not valid JSON.', AFTER_TOKEN),
  CONTENT_TYPE_UNSUPPORTED: entry(21, 'Content-Type must be application/json.', AFTER_TOKEN),
  BODY_TOO_LARGE: entry(22, 'The request body is too large.', AFTER_TOKEN),
  BACKEND_UNAVAILABLE: entry(23, 'The service is temporarily unavailable.', {
    retryAfter: true,
    serverFault: true,
  }),
  NOT_FOUND: entry(24, 'No such endpoint.'),
  IDEMPOTENCY_KEY_REUSED: entry(
    25,
    'This idempotency key was already used for a different request.',
    AFTER_TOKEN,
  ),
  IDEMPOTENCY_KEY_IN_USE: entry(
    26,
    'A request with this idempotency key is still running; retry shortly.',
    { afterTokenCheck: true, retryAfter: true },
  ),
  IDEMPOTENCY_KEY_INVALID: entry(27, 'The idempotency key must not be empty.', AFTER_TOKEN),
  /** Following a link that is disabled, of an inactive organization, or now refused. */
  LINK_DISABLED: entry(28, 'This short link has been disabled.'),
  /** A field of a request reading or governing links is invalid (page size, token, reason...). */
  ARGUMENT_INVALID: entry(29, 'An argument of the request is invalid.'),
  /** Following a link past its expires_at, or that has redirected max_visits times. */
  LINK_EXPIRED: entry(30, 'This short link has expired.'),
  EXPIRES_AT_INVALID: entry(
    31,
    `expires_at must be an RFC 3339 date-time with an offset, in the future and at most ${MAX_EXPIRY_YEARS} years ahead.`,
    RECORDED,
  ),
  MAX_VISITS_INVALID: entry(
    32,
    `max_visits must be an integer from 1 to ${MAX_VISITS_LIMIT.toLocaleString('en-US')}.`,
    RECORDED,
  ),
  /** A member's enable or edit of a link the operator or a rescan disabled. */
  LINK_HELD: entry(
    33,
    'This link was disabled by the operator; only the operator can enable or change it.',
    AFTER_TOKEN,
  ),
} as const satisfies Record<string, ErrorEntry>;

export type ErrorReason = keyof typeof ERROR_CATALOGUE;

/** Every reason, in the order of their codes. */
export const ERROR_REASONS = Object.keys(ERROR_CATALOGUE) as ErrorReason[];

/** The numeric code of each reason (`ErrorCode.ALIAS_TAKEN` is 15). */
export const ErrorCode = Object.fromEntries(
  ERROR_REASONS.map((reason) => [reason, ERROR_CATALOGUE[reason].code]),
) as { readonly [R in ErrorReason]: (typeof ERROR_CATALOGUE)[R]['code'] };

export type ErrorCodeNumber = (typeof ErrorCode)[ErrorReason];

const reasonsByCode = new Map<number, ErrorReason>(
  ERROR_REASONS.map((reason) => [ErrorCode[reason], reason]),
);

/** The reason with this numeric code, if the catalogue has one. */
export function findReason(code: number): ErrorReason | undefined {
  return reasonsByCode.get(code);
}

export function reasonOf(code: ErrorCodeNumber): ErrorReason {
  const reason = findReason(code);
  if (reason === undefined) throw new RangeError(`unknown error code ${code}`);
  return reason;
}

/** The reasons whose catalogue entry has `flag` set. */
export function reasonsWith(flag: ErrorFlag): ErrorReason[] {
  return ERROR_REASONS.filter((reason) => ERROR_CATALOGUE[reason][flag]);
}
