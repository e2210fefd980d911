import { toShortlinkError, type OperationMetrics } from '../core';
import type { UnaryHandler } from './unary';

/** The handler, counted and timed by `measured` with the contract code of its outcome. */
export function measuredBy<TRequest, TResponse>(
  measured: OperationMetrics | undefined,
  handler: UnaryHandler<TRequest, TResponse>,
): UnaryHandler<TRequest, TResponse> {
  if (!measured) return handler;
  return async (call, trailers) => {
    const startedAt = performance.now();
    try {
      const answer = await handler(call, trailers);
      measured.observe(0, startedAt);
      return answer;
    } catch (error) {
      measured.observe(toShortlinkError(error).code, startedAt);
      throw error;
    }
  };
}
