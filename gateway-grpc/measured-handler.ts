import { toShortlinkError, type OperationMetrics } from '../core';
import type { UnaryHandler } from './unary';

/**
 * The handler, counted and timed by `measured` with the contract code of its outcome. A call that
 * ended before its answer (deadline exceeded, client cancelled) is not counted: unary() sends it
 * no answer, and the request metrics count only answers the client was sent, as over REST.
 */
export function measuredBy<TRequest, TResponse>(
  measured: OperationMetrics | undefined,
  handler: UnaryHandler<TRequest, TResponse>,
): UnaryHandler<TRequest, TResponse> {
  if (!measured) return handler;
  return async (call, trailers) => {
    const startedAt = performance.now();
    try {
      const answer = await handler(call, trailers);
      if (!call.cancelled) measured.observe(0, startedAt);
      return answer;
    } catch (error) {
      if (!call.cancelled) measured.observe(toShortlinkError(error).code, startedAt);
      throw error;
    }
  };
}
