import { findReason, reasonsWith, type ErrorReason } from '../errors/error-catalogue';
import { ShortlinkError } from '../errors/shortlink-error';
import type { RecordedOutcome } from '../ports/idempotency-store';

/**
 * Failures recorded with the key are those the catalogue marks `recorded` (a retry of the same
 * request would meet them again), unless the refusal was transient (a URL_BLOCKED because the
 * reputation service gave no verdict, with SAFE_BROWSING_FAIL=closed), whose message itself asks
 * for a retry later.
 */
const RECORDED_FAILURES: ReadonlySet<ErrorReason> = new Set(reasonsWith('recorded'));

/**
 * Failures an earlier version recorded (when the idempotency stage came before the organization
 * stage), still replayed from the records it left until they expire (IDEMPOTENCY_TTL_SECONDS):
 * only a caller who passes the organization stage now gets that far.
 */
const FORMERLY_RECORDED: ReadonlySet<ErrorReason> = new Set([
  'ORGANIZATION_KEY_MISSING',
  'ORGANIZATION_KEY_INVALID',
  'ORGANIZATION_INACTIVE',
  'NOT_A_MEMBER',
]);

const SUCCESS_CODE = 0;

export function isRecordedFailure(error: ShortlinkError): boolean {
  return RECORDED_FAILURES.has(error.reason) && !error.transient;
}

/** A success: the answer's JSON (what the procedure returned), replayed byte for byte. */
export function successOutcome(answer: unknown): RecordedOutcome {
  return { code: SUCCESS_CODE, body: JSON.stringify(answer) };
}

export function failureOutcome(error: ShortlinkError): RecordedOutcome {
  return { code: error.code, body: JSON.stringify(error.messages) };
}

/**
 * The recorded answer again: the link for a success (same fields in the same order, so the
 * transports render it byte for byte as the first time), the recorded error otherwise.
 */
export function replay(outcome: RecordedOutcome): unknown {
  if (outcome.code === SUCCESS_CODE) return JSON.parse(outcome.body) as unknown;
  const reason = findReason(outcome.code);
  if (!reason || (!RECORDED_FAILURES.has(reason) && !FORMERLY_RECORDED.has(reason))) {
    throw new Error(`idempotency record holds code ${outcome.code}, which is never recorded`);
  }
  const messages = JSON.parse(outcome.body) as string[];
  throw new ShortlinkError(reason, messages);
}
