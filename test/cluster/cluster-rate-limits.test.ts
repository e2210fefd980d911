import { EventEmitter } from 'node:events';
import { BackendUnavailableError } from '../../core/errors/shortlink-error';
import {
  ClusterLimitsClient,
  type LimitsChannel,
} from '../../core/adapters/rate-limit/cluster/cluster-limits-client';
import {
  holdClusterRateLimits,
  type LimitsPeer,
} from '../../core/adapters/rate-limit/cluster/cluster-limits-primary';
import type {
  LimitBatch,
  LimitBatchAnswer,
} from '../../core/adapters/rate-limit/cluster/cluster-limits-protocol';
import { createClusterRateLimiter } from '../../core/adapters/rate-limit/cluster-rate-limiter';

/**
 * One primary and any number of workers joined in memory the way node:cluster joins them: a
 * worker's send reaches the primary's 'message' listener with that worker, the primary's send
 * reaches the worker's. Messages cross as JSON, as over the real channel, asynchronously.
 */
function cluster() {
  const primary = new EventEmitter();
  holdClusterRateLimits({
    on: (event, listener) => primary.on(event, listener),
  });
  const sent: LimitBatch[] = [];
  const worker = (options: { timeoutMs?: number; primaryAnswers?: boolean } = {}) => {
    const inbox = new EventEmitter();
    const peer: LimitsPeer = {
      send: (message: LimitBatchAnswer) =>
        setImmediate(() => inbox.emit('message', JSON.parse(JSON.stringify(message)))),
    };
    const channel: LimitsChannel = {
      send: (message, callback) => {
        sent.push(message);
        if (options.primaryAnswers !== false) {
          setImmediate(() => primary.emit('message', peer, JSON.parse(JSON.stringify(message))));
        }
        callback(null);
      },
      on: (event, listener) => inbox.on(event, listener),
    };
    return new ClusterLimitsClient(channel, options.timeoutMs);
  };
  return { worker, sent };
}

const perToken = { limit: 60, keyPrefix: 'token' };

describe('rate limits held by the cluster primary, asked in batches', () => {
  it('sends every call of one event-loop turn as one message, answered in order', async () => {
    const { worker, sent } = cluster();
    const limiter = createClusterRateLimiter(perToken, worker());
    const decisions = await Promise.all(Array.from({ length: 5 }, () => limiter.consume('t1')));
    expect(sent).toHaveLength(1);
    expect(sent[0]?.calls).toHaveLength(5);
    expect(decisions.map((decision) => decision.remaining)).toEqual([59, 58, 57, 56, 55]);
    expect(decisions.every((decision) => decision.allowed && decision.limit === 60)).toBe(true);
  });

  it("holds one key's budget exactly across workers, whatever the batches", async () => {
    const { worker } = cluster();
    const limiters = [worker(), worker(), worker()].map((client) =>
      createClusterRateLimiter(perToken, client),
    );
    const decisions = await Promise.all(
      Array.from({ length: 100 }, (_, index) => limiters[index % 3]!.consume('t1')),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(60);
    const remaining = decisions.map((decision) => decision.remaining).sort((a, b) => a - b);
    expect(new Set(remaining.filter((left) => left > 0)).size).toBe(59);
  });

  it('keeps budgets apart by key and by limiter, and peeks without counting', async () => {
    const { worker } = cluster();
    const client = worker();
    const tokens = createClusterRateLimiter(perToken, client);
    const failures = createClusterRateLimiter({ limit: 3, keyPrefix: 'authfail' }, client);
    expect(await tokens.peek('t1')).toBeNull();
    await Promise.all([tokens.consume('t1'), tokens.consume('t2'), failures.consume('t1')]);
    expect((await tokens.peek('t1'))?.remaining).toBe(59);
    expect((await tokens.peek('t1'))?.remaining).toBe(59);
    const lastFailures = await Promise.all([failures.consume('t1'), failures.consume('t1')]);
    expect(lastFailures.map((decision) => decision.allowed)).toEqual([true, true]);
    const over = await failures.consume('t1');
    expect(over).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    expect(over.resetAt).toBeGreaterThan(Date.now());
  });

  it('fails the calls as an outage when the primary does not answer in time', async () => {
    const { worker } = cluster();
    const limiter = createClusterRateLimiter(
      perToken,
      worker({ timeoutMs: 50, primaryAnswers: false }),
    );
    const results = await Promise.allSettled([limiter.consume('t1'), limiter.peek('t1')]);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      const reason = (result as PromiseRejectedResult).reason as Error;
      expect(reason).toBeInstanceOf(BackendUnavailableError);
      expect(reason.message).toMatch(/no answer from the primary in 50 ms/);
    }
  });

  it('fails the calls as an outage when the channel cannot be written', async () => {
    const channel: LimitsChannel = {
      send: (_message, callback) => callback(new Error('channel closed')),
      on: () => undefined,
    };
    const limiter = createClusterRateLimiter(perToken, new ClusterLimitsClient(channel));
    const error = await limiter.consume('t1').catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(BackendUnavailableError);
    expect((error as Error).message).toBe('cluster rate limits unavailable: channel closed');
  });

  it('ignores messages of other channels, on both sides', async () => {
    const primary = new EventEmitter();
    holdClusterRateLimits({ on: (event, listener) => primary.on(event, listener) });
    const answered: unknown[] = [];
    const peer: LimitsPeer = { send: (message) => answered.push(message) };
    primary.emit('message', peer, { channel: 'rate_limiter_flexible', calls: [] });
    primary.emit('message', peer, 'hello');
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toEqual([]);

    const inbox = new EventEmitter();
    const client = new ClusterLimitsClient(
      {
        send: (_message, callback) => callback(null),
        on: (event, listener) => inbox.on(event, listener),
      },
      50,
    );
    const pending = createClusterRateLimiter(perToken, client).consume('t1');
    inbox.emit('message', { channel: 'shortlink:rate-limits', batch: 1 });
    inbox.emit('message', { channel: 'other', batch: 1, answers: [] });
    await expect(pending).rejects.toThrow(/no answer from the primary/);
  });
});
