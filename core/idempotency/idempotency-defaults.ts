/** IDEMPOTENCY_TTL_SECONDS' default: a day, as Stripe keeps its keys. */
export const DEFAULT_IDEMPOTENCY_TTL_SECONDS = 86_400;

/** A running record's lease: longer than any create, short enough after a crash. */
export const DEFAULT_IDEMPOTENCY_LEASE_SECONDS = 60;

/**
 * The longest idempotency TTL (IDEMPOTENCY_TTL_SECONDS, `idempotencyTtlSeconds`): ten years. Far
 * beyond any retry, and far from the largest date JavaScript and the stores can hold (a record's
 * expiry is a date).
 */
export const MAX_IDEMPOTENCY_TTL_SECONDS = 10 * 365 * 86_400;
