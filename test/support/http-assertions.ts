import type { IncomingHttpHeaders } from 'node:http';
import { ErrorCode, type ErrorReason } from '../../core';
import type { HttpAnswer } from './http-fixture';

const RATE_LIMIT_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
] as const;

/**
 * The exact text of the contract's error body for `reason` (its numeric code): keys in the order
 * data, code, errors.
 */
export function errorBody(reason: ErrorReason, messages: readonly string[]): string {
  return JSON.stringify({ data: null, code: ErrorCode[reason], errors: messages });
}

/**
 * Asserts an error answer exactly: status, JSON content type and the whole body text, whose code
 * is `reason`'s.
 */
export function expectError(
  answer: HttpAnswer,
  status: number,
  reason: ErrorReason,
  messages: readonly string[],
): void {
  expect({ status: answer.status, text: answer.text }).toEqual({
    status,
    text: errorBody(reason, messages),
  });
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
}

/** The rate-limit headers of a request that passed the token check. */
export function expectRateLimitHeaders(
  headers: IncomingHttpHeaders,
  expected: { limit: number; remaining: number; windowSeconds?: number },
): void {
  const window = expected.windowSeconds ?? 60;
  expect(headers['x-ratelimit-limit']).toBe(String(expected.limit));
  expect(headers['x-ratelimit-remaining']).toBe(String(expected.remaining));
  const reset = Number(headers['x-ratelimit-reset']);
  const nowSeconds = Date.now() / 1000;
  expect(Number.isInteger(reset)).toBe(true);
  expect(reset).toBeGreaterThanOrEqual(Math.floor(nowSeconds));
  expect(reset).toBeLessThanOrEqual(Math.ceil(nowSeconds) + window + 1);
  expect(headers['ratelimit-policy']).toBe(`"default";q=${expected.limit};w=${window}`);
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(String(headers.ratelimit));
  expect(match).not.toBeNull();
  expect(Number(match![1])).toBe(expected.remaining);
  expect(Number(match![2])).toBeGreaterThanOrEqual(0);
  expect(Number(match![2])).toBeLessThanOrEqual(window);
}

/** No rate-limit header at all (answers before the token check). */
export function expectNoRateLimitHeaders(headers: IncomingHttpHeaders): void {
  for (const name of RATE_LIMIT_HEADERS) expect(headers[name]).toBeUndefined();
}
