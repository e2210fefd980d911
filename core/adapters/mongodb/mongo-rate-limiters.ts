import type { MongoClient } from 'mongodb';
import { RateLimiterMongo } from 'rate-limiter-flexible';
import type { Store } from '../../ports/store';
import type { RateLimiter } from '../../ports/rate-limiter';
import {
  DEFAULT_AUTH_FAILURE_TRACKED_ADDRESSES,
  LIMITER_KEY_PREFIX,
} from '../../rate-limit/limits';
import { rememberingRefusals } from '../rate-limit/remembered-refusals';
import { withWiderNetworkBudgets } from '../rate-limit/network-budgets';
import { FlexibleRateLimiter, flexibleOptions } from '../rate-limit/flexible-rate-limiter';
import { asBackendError } from './backend-errors';
import { ensureIndexes, RATE_LIMIT_INDEXES } from './indexes';
import { databaseNameFromUri } from './connection-options';
import { COLLECTIONS } from './documents';
import { connectMongoClient, isMongoStore } from './mongo-store';
import { withDeadline } from './operation-deadline';

interface MongoRateLimitersOptions {
  /** The MongoDB store, when there is one: its client (connection pool) is reused. */
  store?: Store;
  /** Used to open a client when `store` is not a MongoDB store. */
  uri: string;
  perTokenLimit: number;
  authFailureLimit: number;
  /** Unknown aliases followed per client address; 0 or absent: none. */
  followMissLimit?: number;
  /** How many refusals of the follow-miss limiter are remembered in the process (100,000). */
  trackedAddresses?: number;
  windowSeconds?: number;
  /** The longest one limiter call waits (MONGODB_TIMEOUT_MS; absent or 0: unbounded). */
  operationTimeoutMs?: number;
  /** Whether missing indexes are created (MONGODB_CREATE_INDEXES; default true), else refused. */
  createIndexes?: boolean;
}

export interface MongoRateLimiters {
  perToken: FlexibleRateLimiter;
  authFailures: FlexibleRateLimiter;
  /** Remembering each refusal in the process until its window resets; null: no budget. */
  followMisses: RateLimiter | null;
  close(): Promise<void>;
}

/**
 * The per-token, auth-failure and follow-miss limiters on rate-limiter-flexible's MongoDB store,
 * so limits hold across every process sharing the database. All live in one collection (their
 * keys are prefixed); its TTL and unique-key indexes are checked here (listIndexes), and created
 * when missing, awaited, rather than in the background by the library, so an unreachable server
 * fails start-up.
 */
export async function createMongoRateLimiters(
  options: MongoRateLimitersOptions,
): Promise<MongoRateLimiters> {
  const shared = options.store && isMongoStore(options.store) ? options.store : undefined;
  const client: MongoClient = shared ? shared.client : await connectMongoClient(options.uri);
  const dbName = shared ? shared.db.databaseName : databaseNameFromUri(options.uri);
  const limiter = (limit: number, keyPrefix: string) =>
    new RateLimiterMongo({
      storeClient: client,
      dbName,
      tableName: COLLECTIONS.rateLimits,
      ...flexibleOptions({ limit, windowSeconds: options.windowSeconds, keyPrefix }),
      disableIndexesCreation: true,
    });
  const perToken = limiter(options.perTokenLimit, LIMITER_KEY_PREFIX.perToken);
  const authFailures = limiter(options.authFailureLimit, LIMITER_KEY_PREFIX.authFailures);
  const close = () => (shared ? Promise.resolve() : client.close());
  try {
    const wanted = Object.values(RATE_LIMIT_INDEXES);
    const create = options.createIndexes ?? true;
    await ensureIndexes(client.db(dbName), wanted, { create });
  } catch (error) {
    await close().catch(() => undefined);
    throw asBackendError(error, 'rate-limit index check');
  }
  const followMissLimit = options.followMissLimit ?? 0;
  const bound = (flexible: RateLimiterMongo, keyPrefix: string) =>
    withDeadline(
      new FlexibleRateLimiter(flexible),
      options.operationTimeoutMs ?? 0,
      `rate limit ${keyPrefix}`,
    );
  return {
    perToken: bound(perToken, LIMITER_KEY_PREFIX.perToken),
    authFailures: bound(authFailures, LIMITER_KEY_PREFIX.authFailures),
    followMisses:
      followMissLimit > 0
        ? withWiderNetworkBudgets(
            (limit) =>
              rememberingRefusals(
                bound(
                  limiter(limit, LIMITER_KEY_PREFIX.followMisses),
                  LIMITER_KEY_PREFIX.followMisses,
                ),
                { maxKeys: options.trackedAddresses ?? DEFAULT_AUTH_FAILURE_TRACKED_ADDRESSES },
              ),
            followMissLimit,
          )
        : null,
    close,
  };
}
