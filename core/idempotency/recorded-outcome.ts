import { reasonOf, type ErrorCodeNumber } from '../errors/error-codes';
import { ShortlinkError } from '../errors/shortlink-error';
import type { ShortLink } from '../links/short-link';
import type { RecordedOutcome } from '../ports/idempotency-store';

/**
 * Failures recorded with the key: those of the stages after the idempotency stage, which a
 * retry of the same request would meet again (5-9, 14-16, 18). The organization stage's (4, 12,
 * 13, 17) come before the claim and are never recorded: they are decided again on every request,
 * so a key used before a member was added or after an organization was deactivated is answered
 * as the organization stands now. The service's own failures (1, 23) are not recorded either: a
 * retry may succeed, so the key is released instead. Neither is a transient refusal (an 18
 * because the reputation service gave no verdict, with SAFE_BROWSING_FAIL=closed), whose message
 * itself asks for a retry later.
 */
const RECORDED_FAILURES: ReadonlySet<number> = new Set([5, 6, 7, 8, 9, 14, 15, 16, 18]);

/**
 * Codes an earlier version recorded (when the idempotency stage came before the organization
 * stage), still replayed from the records it left until they expire (IDEMPOTENCY_TTL_SECONDS):
 * only a caller who passes the organization stage now gets that far.
 */
const FORMERLY_RECORDED: ReadonlySet<number> = new Set([4, 12, 13, 17]);

const SUCCESS_CODE = 0;

export function isRecordedFailure(error: ShortlinkError): boolean {
  return RECORDED_FAILURES.has(error.code) && !error.transient;
}

export function successOutcome(link: ShortLink): RecordedOutcome {
  return { code: SUCCESS_CODE, body: JSON.stringify(link) };
}

export function failureOutcome(error: ShortlinkError): RecordedOutcome {
  return { code: error.code, body: JSON.stringify(error.messages) };
}

/**
 * The recorded answer again: the link for a success (same fields in the same order, so the
 * transports render it byte for byte as the first time), the recorded error otherwise.
 */
export function replay(outcome: RecordedOutcome): ShortLink {
  if (outcome.code === SUCCESS_CODE) return JSON.parse(outcome.body) as ShortLink;
  if (!RECORDED_FAILURES.has(outcome.code) && !FORMERLY_RECORDED.has(outcome.code)) {
    throw new Error(`idempotency record holds code ${outcome.code}, which is never recorded`);
  }
  const messages = JSON.parse(outcome.body) as string[];
  throw new ShortlinkError(reasonOf(outcome.code as ErrorCodeNumber), messages);
}
