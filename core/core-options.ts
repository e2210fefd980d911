import { z } from 'zod';
import type { CoreDeps } from './context';
import { MAX_IDEMPOTENCY_TTL_SECONDS } from './idempotency/idempotency-defaults';

/** The most generated aliases one create tries: far more than collisions ever need. */
export const MAX_ALIAS_ATTEMPTS = 1_000;

const SECONDS = `must be a number of seconds above 0 and at most ${MAX_IDEMPOTENCY_TTL_SECONDS} (ten years)`;
const seconds = z
  .number({ message: SECONDS })
  .positive(SECONDS)
  .max(MAX_IDEMPOTENCY_TTL_SECONDS, SECONDS);
const ATTEMPTS = `must be a whole number from 1 to ${MAX_ALIAS_ATTEMPTS}`;

/** The numbers an embedder may give createCore, checked as the environment's settings are. */
const numbers = z.object({
  maxAliasAttempts: z
    .number({ message: ATTEMPTS })
    .int(ATTEMPTS)
    .min(1, ATTEMPTS)
    .max(MAX_ALIAS_ATTEMPTS, ATTEMPTS),
  idempotencyTtlSeconds: seconds,
  idempotencyLeaseSeconds: seconds,
  linkDomainsRefreshSeconds: seconds,
});

/**
 * Refuses, at construction, a number no core can work with: a TTL of -5 or "abc" would record
 * every answer already expired (a retry would create a second link), and no alias attempts would
 * fail every generated alias. A RangeError naming each option: it is the embedder's mistake, not a
 * request's.
 */
export function checkCoreNumbers(
  deps: Pick<
    CoreDeps,
    | 'maxAliasAttempts'
    | 'idempotencyTtlSeconds'
    | 'idempotencyLeaseSeconds'
    | 'linkDomainsRefreshSeconds'
  >,
): void {
  const result = numbers.safeParse(deps);
  if (result.success) return;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.join('.')} ${issue.message} (given ${givenValue(deps, issue.path)})`,
  );
  throw new RangeError(`createCore: ${problems.join('; ')}`);
}

function givenValue(deps: object, path: PropertyKey[]): string {
  const value: unknown = (deps as Record<PropertyKey, unknown>)[path[0] ?? ''];
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
