/**
 * The catalogue of every error the product can answer with: the spec's numeric codes plus the
 * contract's extensions. Transports map these names exhaustively (see each gateway's mapping),
 * so adding a code here does not compile until every transport decides what it means.
 */
export const ErrorCode = {
  INTERNAL: 1,
  METHOD_NOT_ALLOWED: 2,
  TOKEN_MISSING: 3,
  ORGANIZATION_KEY_MISSING: 4,
  URL_GROUP_ID_MISSING: 5,
  URL_MISSING: 6,
  URL_INVALID: 7,
  ALIAS_INVALID: 8,
  ALIAS_TOO_LONG: 9,
  TOKEN_MALFORMED: 10,
  TOKEN_UNKNOWN: 11,
  ORGANIZATION_KEY_INVALID: 12,
  ORGANIZATION_INACTIVE: 13,
  URL_GROUP_NOT_FOUND: 14,
  ALIAS_TAKEN: 15,
  REDIRECT_TYPE_INVALID: 16,
  NOT_A_MEMBER: 17,
  URL_BLOCKED: 18,
  RATE_LIMITED: 19,
  BODY_INVALID: 20,
  CONTENT_TYPE_UNSUPPORTED: 21,
  BODY_TOO_LARGE: 22,
  BACKEND_UNAVAILABLE: 23,
  NOT_FOUND: 24,
  IDEMPOTENCY_KEY_REUSED: 25,
  IDEMPOTENCY_KEY_IN_USE: 26,
  IDEMPOTENCY_KEY_INVALID: 27,
  /** Following a link that is disabled, of an inactive organization, or now refused (410). */
  LINK_DISABLED: 28,
  /** A field of a request reading or governing links is invalid (page size, token, reason...). */
  ARGUMENT_INVALID: 29,
} as const;

export type ErrorReason = keyof typeof ErrorCode;
export type ErrorCodeNumber = (typeof ErrorCode)[ErrorReason];

const reasonsByCode = new Map<number, ErrorReason>(
  (Object.keys(ErrorCode) as ErrorReason[]).map((reason) => [ErrorCode[reason], reason]),
);

export function reasonOf(code: ErrorCodeNumber): ErrorReason {
  const reason = reasonsByCode.get(code);
  if (reason === undefined) throw new RangeError(`unknown error code ${code}`);
  return reason;
}
