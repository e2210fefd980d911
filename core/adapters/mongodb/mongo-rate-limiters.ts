import type { MongoClient } from 'mongodb';
import { RateLimiterMongo } from 'rate-limiter-flexible';
import type { Store } from '../../ports/store';
import { LIMITER_KEY_PREFIX } from '../../rate-limit/limits';
import { FlexibleRateLimiter, flexibleOptions } from '../rate-limit/flexible-rate-limiter';
import { onMongo } from './backend-errors';
import { databaseNameFromUri } from './connection-options';
import { COLLECTIONS } from './documents';
import { connectMongoClient, isMongoStore } from './mongo-store';

export interface MongoRateLimitersOptions {
  /** The MongoDB store, when there is one: its client (connection pool) is reused. */
  store?: Store;
  /** Used to open a client when `store` is not a MongoDB store. */
  uri: string;
  perTokenLimit: number;
  authFailureLimit: number;
  windowSeconds?: number;
}

export interface MongoRateLimiters {
  perToken: FlexibleRateLimiter;
  authFailures: FlexibleRateLimiter;
  close(): Promise<void>;
}

/**
 * The per-token and auth-failure limiters on rate-limiter-flexible's MongoDB store, so limits
 * hold across every process sharing the database. Both live in one collection (their keys are
 * prefixed); its TTL and unique-key indexes are created here, awaited, rather than in the
 * background by the library, so an unreachable server fails start-up.
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
    await onMongo('rate-limit index creation', () => perToken.createIndexes());
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
  return {
    perToken: new FlexibleRateLimiter(perToken),
    authFailures: new FlexibleRateLimiter(authFailures),
    close,
  };
}
