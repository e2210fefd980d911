import cluster from 'node:cluster';
import type { RateLimiter } from '../../../ports/rate-limiter';
import { createMemoryRateLimiter } from '../flexible-rate-limiter';
import {
  CLUSTER_LIMITS_CHANNEL,
  isLimitBatch,
  type LimitAnswer,
  type LimitBatch,
  type LimitBatchAnswer,
  type LimitCall,
} from './cluster-limits-protocol';

/** A worker as the primary sees it: it can be sent a message. */
export interface LimitsPeer {
  send(message: LimitBatchAnswer): unknown;
}

/** Where the primary hears its workers: node:cluster, or a test's stand-in. */
export interface LimitsPrimarySource {
  on(event: 'message', listener: (worker: LimitsPeer, message: unknown) => void): unknown;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * In the cluster's primary: holds every worker's rate-limit counters, on rate-limiter-flexible's
 * memory limiter (one per budget), for as long as the primary runs, so one token's budget holds
 * exactly however its requests spread over the workers (a restarted worker finds its budgets
 * where it left them). Each worker sends the calls of one event-loop turn as one message and
 * gets one answer, in order: the counting is the library's, only the transport is batched.
 */
export function holdClusterRateLimits(source: LimitsPrimarySource = cluster): void {
  const limiters = new Map<string, RateLimiter>();
  const limiterFor = (call: LimitCall): RateLimiter => {
    let limiter = limiters.get(call.prefix);
    if (!limiter) {
      limiter = createMemoryRateLimiter({
        limit: call.limit,
        windowSeconds: call.windowSeconds,
        keyPrefix: call.prefix,
      });
      limiters.set(call.prefix, limiter);
    }
    return limiter;
  };
  const answer = async (call: LimitCall): Promise<LimitAnswer> => {
    try {
      const limiter = limiterFor(call);
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
  answer: (call: LimitCall) => Promise<LimitAnswer>,
): Promise<void> {
  // The memory limiter counts synchronously inside each call, in the order they are made.
  const answers = await Promise.all(calls.map(answer));
  try {
    worker.send({ channel: CLUSTER_LIMITS_CHANNEL, batch, answers });
  } catch {
    // The worker is gone; its calls time out there, if it is still running at all.
  }
}
