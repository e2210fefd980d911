import { ERROR_CATALOGUE, type ErrorReason } from '../../core';
import { urlRefusedMessage } from '../../core/links/create-link';
import {
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  RATE_LIMIT_WINDOW_SECONDS,
} from '../../core/rate-limit/limits';
import { tokenLimitMessage } from '../../core/rate-limit/limit-per-token';
import { CREDENTIALS_REFUSAL } from '../../core/url-guard/credentials-rule';
import { BODY_TOO_LARGE_MESSAGE } from '../body-decoding';

/**
 * Messages composed where the failure is found (the rule that refused, the limit and the wait, the
 * body limit), shown as they are sent instead of the catalogue's default.
 */
const COMPOSED: Partial<Record<ErrorReason, string>> = {
  URL_BLOCKED: urlRefusedMessage(CREDENTIALS_REFUSAL),
  RATE_LIMITED: tokenLimitMessage(DEFAULT_RATE_LIMIT_PER_MINUTE, RATE_LIMIT_WINDOW_SECONDS, 42),
  BODY_TOO_LARGE: BODY_TOO_LARGE_MESSAGE,
};

/** The example message the OpenAPI document shows for a code. */
export function exampleMessage(reason: ErrorReason): string {
  return COMPOSED[reason] ?? ERROR_CATALOGUE[reason].message;
}
