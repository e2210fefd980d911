import { createMemoryStore } from '../adapters/memory/memory-store';
import type { Logger } from '../ports/logger';
import type { Store } from '../ports/store';
import type { Config } from './config';

/** The embedded memory store, or MongoDB when MONGODB_URI is set. */
export function createStoreFromConfig(config: Config, _logger: Logger): Promise<Store> {
  if (config.MONGODB_URI) {
    return Promise.reject(new Error('MONGODB_URI is set but the MongoDB store is not built yet'));
  }
  return Promise.resolve(createMemoryStore());
}
