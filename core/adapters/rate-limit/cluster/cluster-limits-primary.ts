import cluster from 'node:cluster';
import { messageOf } from '../../../errors/message-of';
import type { RateLimiter } from '../../../ports/rate-limiter';
import { CappedMemoryRateLimiter } from '../capped-memory-rate-limiter';
import { createMemoryRateLimiter } from '../flexible-rate-limiter';
import {
  CLUSTER_LIMITS_CHANNEL,
  isLimitBatch,
  isLimitCall,
  type LimitAnswer,
  type LimitBatch,
  type LimitBatchAnswer,
  type LimitCall,
} from './cluster-limits-protocol';

/** A worker as the primary sees it: it can be sent a message, with a report of the outcome. */
export interface LimitsPeer {
  send(message: LimitBatchAnswer, callback: (error: Error | null) => void): unknown;
}

/** Where the primary hears its workers: node:cluster, or a test's stand-in. */
export interface LimitsPrimarySource {
  on(event: 'message', listener: (worker: LimitsPeer, message: unknown) => void): unknown;
}

interface Budget {
  limiter: RateLimiter;
  /** What the budget was made with: a call asking for another is refused, never re-counted. */
  terms: string;
}

const termsOf = (call: LimitCall) => `${call.limit}/${call.windowSeconds}s/${call.maxKeys ?? '-'}`;

function budgetFor(call: LimitCall): RateLimiter {
  const options = { limit: call.limit, windowSeconds: call.windowSeconds };
  return call.maxKeys === undefined
    ? createMemoryRateLimiter({ ...options, keyPrefix: call.prefix })
    : new CappedMemoryRateLimiter({ ...options, maxKeys: call.maxKeys });
}

const holding = new WeakSet<LimitsPrimarySource>();

/**
 * In the cluster's primary: holds every worker's rate-limit counters, one limiter per budget
 * (rate-limiter-flexible's memory limiter; the capped one for budgets keyed by client
 * addresses), for as long as the primary runs, so one token's budget holds exactly however its
 * requests spread over the workers (a restarted worker finds its budgets where it left them).
 * Each worker sends the calls of one event-loop turn as one message and gets one answer, in
 * order: the counting is the limiters', only the transport is batched. A malformed call, or one
 * asking a budget for other terms than it was made with, is answered with an error
 * (BACKEND_UNAVAILABLE in the worker), never counted. Registering twice on one source changes
 * nothing.
 */
export function holdClusterRateLimits(source: LimitsPrimarySource = cluster): void {
  if (holding.has(source)) return;
  holding.add(source);
  const budgets = new Map<string, Budget>();
  const answer = async (call: unknown): Promise<LimitAnswer> => {
    if (!isLimitCall(call)) return { error: 'a malformed rate-limit call' };
    let budget = budgets.get(call.prefix);
    if (!budget) {
      budget = { limiter: budgetFor(call), terms: termsOf(call) };
      budgets.set(call.prefix, budget);
    } else if (budget.terms !== termsOf(call)) {
      return { error: `budget ${call.prefix} is held with other terms (${budget.terms})` };
    }
    try {
      const { limiter } = budget;
      const decision =
        call.op === 'consume' ? await limiter.consume(call.key) : await limiter.peek(call.key);
      return { decision };
    } catch (error) {
      return { error: messageOf(error) };
    }
  };
  source.on('message', (worker, message) => {
    if (!isLimitBatch(message)) return;
    void answerBatch(worker, message, answer);
  });
}

async function answerBatch(
  worker: LimitsPeer,
  { batch, calls }: LimitBatch,
  answer: (call: unknown) => Promise<LimitAnswer>,
): Promise<void> {
  // Each limiter counts synchronously inside its call, in the order the calls are made.
  const answers = await Promise.all(calls.map(answer));
  try {
    // With a callback, a worker that died meanwhile is reported here rather than as an 'error'
    // event on the worker, which nothing handles and which would stop the primary. Its calls
    // time out in the worker, if that worker still runs at all.
    worker.send({ channel: CLUSTER_LIMITS_CHANNEL, batch, answers }, () => undefined);
  } catch {
    // The same, when the channel refuses at once.
  }
}
