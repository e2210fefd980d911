import type { ResponseInfo } from '../context';

/**
 * The contract's rate-limit fields, named as the contract names them: the conventional
 * X-RateLimit-* trio, the IETF draft's RateLimit-Policy and RateLimit, and Retry-After on a
 * refusal. REST sends them as headers, gRPC as (lower-case) trailing metadata.
 */
export function rateLimitFields(
  info: ResponseInfo,
  now = Date.now(),
): Array<[name: string, value: string]> {
  const fields: Array<[string, string]> = [];
  const state = info.rateLimit;
  if (state) {
    const seconds = Math.max(0, Math.ceil((state.resetAt - now) / 1000));
    fields.push(
      ['X-RateLimit-Limit', String(state.limit)],
      ['X-RateLimit-Remaining', String(state.remaining)],
      ['X-RateLimit-Reset', String(Math.ceil(state.resetAt / 1000))],
      ['RateLimit-Policy', `"default";q=${state.limit};w=${state.windowSeconds}`],
      ['RateLimit', `"default";r=${state.remaining};t=${seconds}`],
    );
  }
  if (info.retryAfterSeconds !== undefined) {
    fields.push(['Retry-After', String(info.retryAfterSeconds)]);
  }
  return fields;
}
