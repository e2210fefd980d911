/** Whole seconds until `resetAt` (epoch ms), at least 1: the value of a Retry-After. */
export function retryAfterSeconds(resetAt: number, now = Date.now()): number {
  return Math.max(1, Math.ceil((resetAt - now) / 1000));
}
