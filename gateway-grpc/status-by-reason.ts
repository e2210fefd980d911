import { status } from '@grpc/grpc-js';
import type { ErrorReason } from '../core';

/**
 * The one gRPC mapping of the core's error catalogue (CONTRACT.md §4); a new code does not
 * compile until mapped. Codes the contract's table leaves out are transport failures REST alone
 * can produce (2, 20, 21, 22) or its unknown path (24); they are mapped by their meaning.
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
};
