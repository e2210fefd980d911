import { createMemoryStore } from '../adapters/memory/memory-store';
import { createMongoStore } from '../adapters/mongodb/mongo-store';
import type { Logger } from '../ports/logger';
import type { Store } from '../ports/store';
import type { Config } from './config';

/** The embedded memory store, or MongoDB when MONGODB_URI is set. */
export function createStoreFromConfig(config: Config, logger: Logger): Promise<Store> {
  if (config.MONGODB_URI) return createMongoStore({ uri: config.MONGODB_URI, logger });
  return Promise.resolve(createMemoryStore());
}
