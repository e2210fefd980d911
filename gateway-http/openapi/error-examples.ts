import type { ErrorReason } from '../../core';
import { BODY_TOO_LARGE_MESSAGE } from '../body-decoding';

/**
 * One example message per error, shown in the OpenAPI document. Typed by the error catalogue, so
 * a new code does not compile until the document can show it.
 */
export const ERROR_EXAMPLES: Record<ErrorReason, string> = {
  INTERNAL: 'An unexpected error occurred.',
  METHOD_NOT_ALLOWED: 'Method not allowed; use POST.',
  TOKEN_MISSING: 'The Authorization header is missing.',
  ORGANIZATION_KEY_MISSING: 'organization_key is required.',
  URL_GROUP_ID_MISSING: 'url_group_id is required.',
  URL_MISSING: 'url is required.',
  URL_INVALID:
    'url must be an absolute http:// or https:// URL with a host and no spaces or control characters.',
  ALIAS_INVALID: 'alias may contain only letters, digits, "_" and "-".',
  ALIAS_TOO_LONG: 'alias must be at most 64 characters.',
  TOKEN_MALFORMED: 'The Authorization header must be "Bearer <token>".',
  TOKEN_UNKNOWN: 'The access token is unknown or revoked.',
  ORGANIZATION_KEY_INVALID: 'The organization key is invalid.',
  ORGANIZATION_INACTIVE: 'The organization is inactive.',
  URL_GROUP_NOT_FOUND: 'No URL group with this url_group_id exists in the organization.',
  ALIAS_TAKEN: 'This alias is already taken on this link domain.',
  REDIRECT_TYPE_INVALID: 'redirect_type must be one of 301, 302, 303, 307, 308.',
  NOT_A_MEMBER: 'The access token does not belong to a member of this organization.',
  URL_BLOCKED: 'The URL was refused: credentials before the host disguise the real destination',
  RATE_LIMITED: 'Rate limit of 60 requests per minute exceeded; retry in 42 s.',
  BODY_INVALID: 'The request body is not valid JSON.',
  CONTENT_TYPE_UNSUPPORTED: 'Content-Type must be application/json.',
  BODY_TOO_LARGE: BODY_TOO_LARGE_MESSAGE,
  BACKEND_UNAVAILABLE: 'The service is temporarily unavailable.',
  NOT_FOUND: 'No such endpoint.',
  IDEMPOTENCY_KEY_REUSED: 'This idempotency key was already used for a different request.',
  IDEMPOTENCY_KEY_IN_USE: 'A request with this idempotency key is still running; retry shortly.',
  IDEMPOTENCY_KEY_INVALID: 'The idempotency key must not be empty.',
  LINK_DISABLED: 'This short link has been disabled.',
  ARGUMENT_INVALID: 'page_size must be a whole number from 1 to 100.',
};
