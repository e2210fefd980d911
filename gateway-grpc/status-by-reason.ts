import { status } from '@grpc/grpc-js';
import type { ErrorReason } from '../core';

/**
 * The one gRPC mapping of the core's error catalogue (documented in gateway-grpc/README.md); a new
 * code does not compile until mapped. gRPC answers BODY_INVALID (request bytes that are not a valid
 * message), NOT_FOUND (an unknown link), LINK_DISABLED (ResolveShortLink of a link not to be
 * followed) and ARGUMENT_INVALID (a malformed argument of a reading or governing RPC) too. Only
 * METHOD_NOT_ALLOWED, CONTENT_TYPE_UNSUPPORTED and BODY_TOO_LARGE describe HTTP requests and never
 * occur over gRPC; they are mapped by their meaning so the table stays total.
 */
export const GRPC_STATUS_BY_REASON: Record<ErrorReason, status> = {
  INTERNAL: status.INTERNAL,
  METHOD_NOT_ALLOWED: status.UNIMPLEMENTED,
  TOKEN_MISSING: status.UNAUTHENTICATED,
  ORGANIZATION_KEY_MISSING: status.INVALID_ARGUMENT,
  URL_GROUP_ID_MISSING: status.INVALID_ARGUMENT,
  URL_MISSING: status.INVALID_ARGUMENT,
  URL_INVALID: status.INVALID_ARGUMENT,
  ALIAS_INVALID: status.INVALID_ARGUMENT,
  ALIAS_TOO_LONG: status.INVALID_ARGUMENT,
  TOKEN_MALFORMED: status.UNAUTHENTICATED,
  TOKEN_UNKNOWN: status.UNAUTHENTICATED,
  ORGANIZATION_KEY_INVALID: status.UNAUTHENTICATED,
  ORGANIZATION_INACTIVE: status.UNAUTHENTICATED,
  URL_GROUP_NOT_FOUND: status.NOT_FOUND,
  ALIAS_TAKEN: status.ALREADY_EXISTS,
  REDIRECT_TYPE_INVALID: status.INVALID_ARGUMENT,
  NOT_A_MEMBER: status.PERMISSION_DENIED,
  URL_BLOCKED: status.FAILED_PRECONDITION,
  RATE_LIMITED: status.RESOURCE_EXHAUSTED,
  BODY_INVALID: status.INVALID_ARGUMENT,
  CONTENT_TYPE_UNSUPPORTED: status.INVALID_ARGUMENT,
  BODY_TOO_LARGE: status.INVALID_ARGUMENT,
  BACKEND_UNAVAILABLE: status.UNAVAILABLE,
  NOT_FOUND: status.NOT_FOUND,
  IDEMPOTENCY_KEY_REUSED: status.INVALID_ARGUMENT,
  IDEMPOTENCY_KEY_IN_USE: status.ABORTED,
  IDEMPOTENCY_KEY_INVALID: status.INVALID_ARGUMENT,
  LINK_DISABLED: status.FAILED_PRECONDITION,
  ARGUMENT_INVALID: status.INVALID_ARGUMENT,
  LINK_EXPIRED: status.FAILED_PRECONDITION,
  EXPIRES_AT_INVALID: status.INVALID_ARGUMENT,
  MAX_VISITS_INVALID: status.INVALID_ARGUMENT,
  LINK_HELD: status.PERMISSION_DENIED,
};
