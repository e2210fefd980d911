import type { AuthenticatedContext } from '../auth/authenticate';
import type { RequestContext } from '../context';
import { ERROR_CATALOGUE } from '../errors/error-catalogue';
import { ShortlinkError } from '../errors/shortlink-error';
import type { Middleware } from '../procedure/procedure';

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** Visible ASCII only: no space, no control character, nothing beyond 0x7E. */
const KEY_CHARACTERS = /^[\x21-\x7e]*$/;

export interface IdempotencyKeyContext extends AuthenticatedContext {
  /** The request's valid idempotency key; undefined when it came without one. */
  idempotencyKey: string | undefined;
}

const invalidKey = (message: string) => new ShortlinkError('IDEMPOTENCY_KEY_INVALID', message);

/** The key's format problem, or null when `key` is a valid key. */
function idempotencyKeyProblem(key: unknown): string | null {
  if (Array.isArray(key) && key.length > 1) {
    return 'The idempotency key was sent more than once: send it once.';
  }
  if (typeof key !== 'string') return 'The idempotency key must be a string.';
  if (key.length === 0) return ERROR_CATALOGUE.IDEMPOTENCY_KEY_INVALID.message;
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    return `The idempotency key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`;
  }
  if (!KEY_CHARACTERS.test(key)) {
    return 'The idempotency key may contain only visible ASCII characters (0x21 to 0x7E): no spaces, control or non-ASCII characters.';
  }
  return null;
}

/**
 * The idempotency key the request came with: undefined when absent (undefined, null or no value),
 * the key itself when sent once, every value when sent more than once.
 */
function sentIdempotencyKey(
  request: Pick<RequestContext, 'idempotencyKey'>,
): string | readonly string[] | undefined {
  const sent = request.idempotencyKey ?? undefined;
  if (typeof sent === 'string' || sent === undefined) return sent;
  return sent.length === 0 ? undefined : sent.length === 1 ? sent[0] : sent;
}

/**
 * Stage "idempotency key format" (IDEMPOTENCY_KEY_INVALID), right after the rate limit: a retry
 * still counts against the token, and a malformed key is refused before the body is looked at.
 * Absent (undefined or null) means the request is not idempotent; an empty key is malformed, not
 * absent.
 */
export const checkIdempotencyKey: Middleware<
  AuthenticatedContext,
  Pick<IdempotencyKeyContext, 'idempotencyKey'>
> = ({ ctx, next }) => {
  const key = sentIdempotencyKey(ctx.request);
  if (key === undefined) return next({ idempotencyKey: undefined });
  const problem = idempotencyKeyProblem(key);
  if (problem !== null) return Promise.reject(invalidKey(problem));
  // idempotencyKeyProblem answers null for a string key only.
  return next({ idempotencyKey: key as string });
};
