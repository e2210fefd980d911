import { EventEmitter } from 'node:events';
import { BackendUnavailableError } from '../../core/errors/shortlink-error';
import {
  ClusterLimitsClient,
  type LimitsChannel,
} from '../../core/adapters/rate-limit/cluster/cluster-limits-client';
import {
  holdClusterRateLimits,
  type LimitsPeer,
  type LimitsPrimarySource,
} from '../../core/adapters/rate-limit/cluster/cluster-limits-primary';
import type {
  LimitBatch,
  LimitBatchAnswer,
} from '../../core/adapters/rate-limit/cluster/cluster-limits-protocol';
import { createClusterRateLimiter } from '../../core/adapters/rate-limit/cluster-rate-limiter';
import { rememberingRefusals } from '../../core/adapters/rate-limit/remembered-refusals';
import { LIMITER_KEY_PREFIX } from '../../core/rate-limit/limits';

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

  it("counts a batch once when the primary's limits are held twice on one source", async () => {
    const primary = new EventEmitter();
    const source: LimitsPrimarySource = {
      on: (event, listener) => primary.on(event, listener),
    };
    holdClusterRateLimits(source);
    holdClusterRateLimits(source);
    const answers: LimitBatchAnswer[] = [];
    const peer: LimitsPeer = { send: (message) => answers.push(message) };
    const call = { prefix: 'token', limit: 60, windowSeconds: 60, op: 'consume', key: 't1' };
    primary.emit('message', peer, { channel: 'shortlink:rate-limits', batch: 1, calls: [call] });
    await new Promise((resolve) => setImmediate(resolve));
    expect(answers).toHaveLength(1);
    expect(answers[0]?.answers[0]).toMatchObject({ decision: { remaining: 59 } });
  });

  it('answers malformed calls and calls for other terms with an error, counting nothing', async () => {
    const primary = new EventEmitter();
    holdClusterRateLimits({ on: (event, listener) => primary.on(event, listener) });
    const answers: LimitBatchAnswer[] = [];
    const peer: LimitsPeer = { send: (message) => answers.push(message) };
    const good = { prefix: 'token', limit: 60, windowSeconds: 60, op: 'consume', key: 't1' };
    const calls = [
      good,
      null,
      { ...good, key: 42 },
      { ...good, limit: -1 },
      { ...good, windowSeconds: 0 },
      { ...good, op: 'reset' },
      { ...good, limit: 1_000_000 },
      { ...good, op: 'peek' },
    ];
    primary.emit('message', peer, { channel: 'shortlink:rate-limits', batch: 7, calls });
    await new Promise((resolve) => setImmediate(resolve));
    const [answer] = answers;
    expect(answer?.batch).toBe(7);
    expect(answer?.answers[0]).toMatchObject({ decision: { remaining: 59 } });
    for (const refused of answer?.answers.slice(1, 6) ?? []) {
      expect(refused).toEqual({ error: 'a malformed rate-limit call' });
    }
    expect(answer?.answers[6]).toEqual({
      error: 'budget token is held with other terms (60/60s/-)',
    });
    expect(answer?.answers[7]).toMatchObject({ decision: { remaining: 59 } });
  });

  it('keeps answering when a worker died before its answer could be sent', async () => {
    const primary = new EventEmitter();
    holdClusterRateLimits({ on: (event, listener) => primary.on(event, listener) });
    const call = { prefix: 'token', limit: 60, windowSeconds: 60, op: 'consume', key: 't1' };
    const batch = { channel: 'shortlink:rate-limits', batch: 1, calls: [call] };
    const callbacks: unknown[] = [];
    // node reports a dead worker's EPIPE to the send's callback when there is one, and as an
    // unhandled 'error' event on the worker (stopping the primary) when there is none.
    const gone: LimitsPeer = {
      send: (_message, callback) => {
        callbacks.push(callback);
        callback(new Error('EPIPE'));
      },
    };
    const refusing: LimitsPeer = {
      send: () => {
        throw new Error('ERR_IPC_CHANNEL_CLOSED');
      },
    };
    primary.emit('message', gone, batch);
    primary.emit('message', refusing, batch);
    const answers: LimitBatchAnswer[] = [];
    primary.emit('message', { send: (message: LimitBatchAnswer) => answers.push(message) }, batch);
    await new Promise((resolve) => setImmediate(resolve));
    // The dead workers' calls were counted (a retry may be refused sooner, never let through).
    expect(answers[0]?.answers[0]).toMatchObject({ decision: { remaining: 57 } });
    expect(callbacks).toEqual([expect.any(Function)]);
  });

  it('shares a follow-miss budget across workers; a worker remembers a refusal and stops asking', async () => {
    const { worker, sent } = cluster();
    const budget = { limit: 3, keyPrefix: LIMITER_KEY_PREFIX.followMisses, maxKeys: 100 };
    const [first, second] = [worker(), worker()].map((client) =>
      rememberingRefusals(createClusterRateLimiter(budget, client), { maxKeys: 100 }),
    );
    const allowed = [];
    for (const limiter of [first, second, first, second]) {
      allowed.push((await limiter!.consume('2001:db8::/64')).allowed);
    }
    expect(allowed).toEqual([true, true, true, false]);
    expect(first!.knownRefusal?.('2001:db8::/64')).toBeUndefined();
    expect(second!.knownRefusal?.('2001:db8::/64')).toMatchObject({ allowed: false, limit: 3 });
    const messages = sent.length;
    expect(second!.knownRefusal?.('2001:db8::/64')).toBeDefined();
    expect(sent).toHaveLength(messages);
  });

  it('holds at most maxKeys keys of a budget that asks for it, forgetting the oldest', async () => {
    const { worker } = cluster();
    const failures = createClusterRateLimiter(
      { limit: 3, keyPrefix: 'authfail', maxKeys: 2 },
      worker(),
    );
    await failures.consume('a');
    await failures.consume('a');
    await failures.consume('b');
    await failures.consume('c');
    expect(await failures.peek('a')).toBeNull();
    expect((await failures.consume('a')).remaining).toBe(2);
  });

  it('fails a call as an outage, without throwing in the listener, on a broken answer', async () => {
    const inbox = new EventEmitter();
    const client = new ClusterLimitsClient(
      {
        send: (message, callback) => {
          callback(null);
          setImmediate(() =>
            inbox.emit('message', {
              channel: 'shortlink:rate-limits',
              batch: message.batch,
              answers: [null, 7],
            }),
          );
        },
        on: (event, listener) => inbox.on(event, listener),
      },
      1_000,
    );
    const limiter = createClusterRateLimiter(perToken, client);
    const results = await Promise.allSettled([
      limiter.consume('t1'),
      limiter.consume('t2'),
      limiter.consume('t3'),
    ]);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(BackendUnavailableError);
    }
    // A late answer for the same batch changes nothing.
    inbox.emit('message', { channel: 'shortlink:rate-limits', batch: 1, answers: [] });
  });
});
