import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type IRateLimiterOptions,
} from 'rate-limiter-flexible';
import { CappedMemoryRateLimiter } from '../rate-limit/capped-memory-rate-limiter';
import { FlexibleRateLimiter } from '../rate-limit/flexible-rate-limiter';
import type { RateLimitDecision } from '../../ports/rate-limiter';
import type { FallbackMonitor } from './fallback-monitor';
import type { RedisClient } from './redis-connection';
import { isTopologyMismatch } from './topology-errors';
import type { RedisTopology } from './redis-topology';

type HandleError = (
  error: unknown,
  funcName: string,
  resolve: (value: unknown) => void,
  reject: (reason: unknown) => void,
  params: unknown[],
) => void;

/** The answers the insurance limiter gave, so a caller can tell them from Redis's. */
type InsuranceAnswers = WeakSet<object>;

/**
 * A capped limiter's decision in rate-limiter-flexible's words. A refusal reads as one point over
 * the limit, which is all FlexibleRateLimiter looks at.
 */
function asRes(decision: RateLimitDecision, now: number): RateLimiterRes {
  const consumed = decision.limit - decision.remaining + (decision.allowed ? 0 : 1);
  return new RateLimiterRes(decision.remaining, decision.resetAt - now, consumed);
}

/**
 * The process-local stand-in rate-limiter-flexible calls when Redis fails; it marks its answers so
 * the monitor learns that a call fell back. With `capped`, keys a client chooses (its address)
 * are counted there, at most `maxKeys` of them, rather than in rate-limiter-flexible's memory
 * limiter, which holds every key (and a timer) until its window ends: an outage must not let a
 * flood of addresses grow the process's memory without bound.
 */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    options: IRateLimiterOptions,
    private readonly answers: InsuranceAnswers,
    private readonly capped?: CappedMemoryRateLimiter,
  ) {
    super(options);
  }

  override consume(
    key: string | number,
    points?: number,
    options?: Record<string, unknown>,
  ): Promise<RateLimiterRes> {
    const capped = this.capped;
    if (!capped) return this.marked(super.consume(key, points, options));
    return this.marked(
      capped.consume(this.getKey(key)).then((decision) => {
        const res = asRes(decision, Date.now());
        // A refusal is a rejection with the result, as rate-limiter-flexible's limiters give it.
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        return decision.allowed ? res : Promise.reject(res);
      }),
    );
  }

  override get(
    key: string | number,
    options?: Record<string, unknown>,
  ): Promise<RateLimiterRes | null> {
    const capped = this.capped;
    if (!capped) return this.marked(super.get(key, options));
    return this.marked(
      capped
        .peek(this.getKey(key))
        .then((decision) => (decision ? asRes(decision, Date.now()) : null)),
    );
  }

  private marked<T>(answer: Promise<T>): Promise<T> {
    const mark = (value: unknown) => {
      if (typeof value === 'object' && value !== null) this.answers.add(value);
    };
    return answer.then(
      (value) => {
        mark(value);
        return value;
      },
      (rejection: unknown) => {
        mark(rejection);
        throw rejection;
      },
    );
  }
}

/**
 * RateLimiterRedis that reports to the monitor who answered each call, and goes straight to the
 * insurance limiter while the monitor holds Redis back.
 */
class MonitoredRedisLimiter extends RateLimiterRedis {
  constructor(
    options: ConstructorParameters<typeof RateLimiterRedis>[0],
    private readonly monitor: FallbackMonitor,
    private readonly insurance: InsuranceLimiter,
    private readonly insuranceAnswers: InsuranceAnswers,
    private readonly topology: RedisTopology['kind'],
  ) {
    super({ ...options, insuranceLimiter: insurance });
  }

  /**
   * rate-limiter-flexible's hook for a failed call, which hands it to the insurance limiter. An
   * answer saying REDIS_URL does not match the deployment (MOVED, ASK, READONLY) is no outage:
   * counting per process would hide it for good. It fails the call (BACKEND_UNAVAILABLE) and is
   * logged as a configuration error instead. (The hook is not in the library's type definitions,
   * hence the untyped call to the inherited one.)
   */
  _handleError(
    error: unknown,
    funcName: string,
    resolve: (value: unknown) => void,
    reject: (reason: unknown) => void,
    params: unknown[],
  ): void {
    if (isTopologyMismatch(error, this.topology)) {
      this.monitor.configurationError(error);
      reject(error);
      return;
    }
    const inherited = (RateLimiterRedis.prototype as unknown as { _handleError: HandleError })
      ._handleError;
    inherited.call(this, error, funcName, resolve, reject, params);
  }

  override consume(
    key: string | number,
    points?: number,
    options?: Record<string, unknown>,
  ): Promise<RateLimiterRes> {
    return this.reported(
      true,
      () => super.consume(key, points, options),
      () => this.insurance.consume(key, points, options),
    );
  }

  override get(
    key: string | number,
    options?: Record<string, unknown>,
  ): Promise<RateLimiterRes | null> {
    // No trial: a null (unknown key) would not tell whether Redis answered.
    return this.reported(
      false,
      () => super.get(key, options),
      () => this.insurance.get(key, options),
    );
  }

  private async reported<T>(
    canTry: boolean,
    viaRedis: () => Promise<T>,
    viaInsurance: () => Promise<T>,
  ): Promise<T> {
    // Redis refuses REDIS_URL itself (credentials, database): no count anywhere,
    // BACKEND_UNAVAILABLE.
    const refusal = this.monitor.refusal;
    if (refusal !== undefined) throw refusal;
    const admission = this.monitor.admit(canTry);
    if (admission === 'insurance') return viaInsurance();
    const ticket = this.monitor.begin();
    try {
      const answer = await viaRedis();
      this.note(ticket, answer);
      return answer;
    } catch (rejection) {
      // A RateLimiterRes rejection is a refusal ("over the limit"), which is still an answer.
      if (rejection instanceof RateLimiterRes) this.note(ticket, rejection);
      throw rejection;
    } finally {
      if (admission === 'trial') this.monitor.trialDone();
    }
  }

  private note(ticket: number, answer: unknown): void {
    // get() answers null for an unknown key, from Redis or from the insurance limiter alike: it
    // says nothing about who answered.
    if (answer === null) return;
    if (this.insuranceAnswers.has(answer as object)) this.monitor.fellBack(ticket);
    else this.monitor.served(ticket);
  }
}

export interface RedisRateLimiterOptions {
  client: RedisClient;
  /** What REDIS_URL described: decides which answers mean a misconfiguration. */
  topology: RedisTopology['kind'];
  monitor: FallbackMonitor;
  limit: number;
  windowSeconds: number;
  /** Every key is `<keyPrefix>:<key>`. */
  keyPrefix: string;
  /**
   * For keys clients choose (their addresses): the insurance limiter holds at most this many,
   * forgetting the least recently counted first, as the in-memory limiter does.
   */
  maxKeys?: number;
}

/**
 * A limiter counting in Redis (atomic INCR with expiry, shared by every process on that Redis),
 * insured by a process-local memory limiter of the same size for while Redis is unreachable.
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): FlexibleRateLimiter {
  const answers: InsuranceAnswers = new WeakSet();
  const shape = { points: options.limit, duration: options.windowSeconds };
  const insurance = new InsuranceLimiter(
    { ...shape, keyPrefix: `${options.keyPrefix}:insurance` },
    answers,
    options.maxKeys === undefined
      ? undefined
      : new CappedMemoryRateLimiter({
          limit: options.limit,
          windowSeconds: options.windowSeconds,
          maxKeys: options.maxKeys,
        }),
  );
  const limiter = new MonitoredRedisLimiter(
    {
      ...shape,
      keyPrefix: options.keyPrefix,
      storeClient: options.client,
      // Fail over at once when the connection is down rather than wait for it.
      rejectIfRedisNotReady: true,
    },
    options.monitor,
    insurance,
    answers,
    options.topology,
  );
  return new FlexibleRateLimiter(limiter);
}
