/** IDEMPOTENCY_TTL_SECONDS' default: a day, as Stripe keeps its keys. */
export const DEFAULT_IDEMPOTENCY_TTL_SECONDS = 86_400;

/**
 * A running record's lease (IDEMPOTENCY_LEASE_SECONDS): renewed every third of it while its request
 * runs (lease-renewal.ts), so it need not outlast any create; it bounds how long the key of a
 * request whose process died stays answered IDEMPOTENCY_KEY_IN_USE.
 */
export const DEFAULT_IDEMPOTENCY_LEASE_SECONDS = 60;

/**
 * The longest lease IDEMPOTENCY_LEASE_SECONDS may set: an hour. A longer one would only keep the
 * key of a crashed request blocked longer.
 */
export const MAX_IDEMPOTENCY_LEASE_SECONDS = 3600;

/**
 * The longest idempotency TTL (IDEMPOTENCY_TTL_SECONDS, `idempotencyTtlSeconds`): ten years. Far
 * beyond any retry, and far from the largest date JavaScript and the stores can hold (a record's
 * expiry is a date).
 */
export const MAX_IDEMPOTENCY_TTL_SECONDS = 10 * 365 * 86_400;
