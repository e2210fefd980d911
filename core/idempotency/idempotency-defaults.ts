/** IDEMPOTENCY_TTL_SECONDS' default: a day, as Stripe keeps its keys. */
export const DEFAULT_IDEMPOTENCY_TTL_SECONDS = 86_400;

/** A running record's lease: longer than any create, short enough after a crash. */
export const DEFAULT_IDEMPOTENCY_LEASE_SECONDS = 60;
