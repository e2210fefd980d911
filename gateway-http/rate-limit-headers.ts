import type { Response } from 'express';
import type { ResponseInfo } from '../core';

/**
 * The contract's rate-limit headers: the conventional X-RateLimit-* trio and the IETF draft's
 * RateLimit-Policy / RateLimit fields; Retry-After on a refusal.
 */
export function setRateLimitHeaders(
  res: Response,
  info: ResponseInfo,
  windowSeconds: number,
  now = Date.now(),
): void {
  const state = info.rateLimit;
  if (state) {
    const seconds = Math.max(0, Math.ceil((state.resetAt - now) / 1000));
    res.setHeader('X-RateLimit-Limit', String(state.limit));
    res.setHeader('X-RateLimit-Remaining', String(state.remaining));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil(state.resetAt / 1000)));
    res.setHeader('RateLimit-Policy', `"default";q=${state.limit};w=${windowSeconds}`);
    res.setHeader('RateLimit', `"default";r=${state.remaining};t=${seconds}`);
  }
  if (info.retryAfterSeconds !== undefined) {
    res.setHeader('Retry-After', String(info.retryAfterSeconds));
  }
}
