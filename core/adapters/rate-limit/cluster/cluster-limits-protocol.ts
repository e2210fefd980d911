import type { RateLimitDecision } from '../../../ports/rate-limiter';

/** The cluster IPC channel's name: messages without it belong to someone else. */
export const CLUSTER_LIMITS_CHANNEL = 'shortlink:rate-limits';

/** One limiter call from a worker, with the budget it counts against. */
export interface LimitCall {
  /** Which budget (per token, auth failures): the primary keeps one limiter per prefix. */
  prefix: string;
  limit: number;
  windowSeconds: number;
  op: 'consume' | 'peek';
  key: string;
  /**
   * For budgets whose keys clients choose (their addresses): the primary holds at most this many
   * keys, forgetting the least recently counted first, as one process does on its own.
   */
  maxKeys?: number;
}

/** Every call a worker made in one event-loop turn, sent as one message. */
export interface LimitBatch {
  channel: typeof CLUSTER_LIMITS_CHANNEL;
  batch: number;
  calls: LimitCall[];
}

/** What the primary decided for one call; `error` when its limiter failed. */
export type LimitAnswer =
  { decision: RateLimitDecision | null; error?: undefined } | { error: string };

/** The primary's answer to one batch: one answer per call, in order. */
export interface LimitBatchAnswer {
  channel: typeof CLUSTER_LIMITS_CHANNEL;
  batch: number;
  answers: LimitAnswer[];
}

function onChannel(message: unknown): message is { channel: string; batch: unknown } {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { channel?: unknown }).channel === CLUSTER_LIMITS_CHANNEL
  );
}

export function isLimitBatch(message: unknown): message is LimitBatch {
  return onChannel(message) && Array.isArray((message as { calls?: unknown }).calls);
}

export function isLimitBatchAnswer(message: unknown): message is LimitBatchAnswer {
  return onChannel(message) && Array.isArray((message as { answers?: unknown }).answers);
}

const positiveInteger = (value: unknown): boolean =>
  typeof value === 'number' && Number.isInteger(value) && value > 0;

/**
 * A call the primary can count: anything else is answered with an error (BACKEND_UNAVAILABLE
 * there).
 */
export function isLimitCall(call: unknown): call is LimitCall {
  if (typeof call !== 'object' || call === null) return false;
  const { prefix, limit, windowSeconds, op, key, maxKeys } = call as Record<string, unknown>;
  return (
    typeof prefix === 'string' &&
    typeof key === 'string' &&
    (op === 'consume' || op === 'peek') &&
    positiveInteger(limit) &&
    positiveInteger(windowSeconds) &&
    (maxKeys === undefined || positiveInteger(maxKeys))
  );
}
