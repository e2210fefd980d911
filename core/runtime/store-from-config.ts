import { createLmdbStore } from '../adapters/lmdb/lmdb-store';
import { createMemoryStore } from '../adapters/memory/memory-store';
import { createMongoStore } from '../adapters/mongodb/mongo-store';
import type { Logger } from '../ports/logger';
import type { Store } from '../ports/store';
import { storeKindOf, type Config } from './config';

/**
 * MongoDB when MONGODB_URI is set; otherwise the embedded store: LMDB in DATA_DIR (durable, safe
 * for several processes on one directory), or the memory store when DATA_DIR is `:memory:`.
 * `migrate`: the server brings an LMDB store of an older format to this code's; the admin
 * commands pass false. `readOnly`: the admin listings open an LMDB store without writing (see
 * LmdbStoreOptions).
 */
export function createStoreFromConfig(
  config: Config,
  logger: Logger,
  { migrate = true, readOnly = false }: { migrate?: boolean; readOnly?: boolean } = {},
): Promise<Store> {
  // MongoDB has no opening write but its missing indexes (none once `admin db migrate` ran).
  if (config.MONGODB_URI) {
    return createMongoStore({
      uri: config.MONGODB_URI,
      logger,
      idBlockSize: config.ID_BLOCK_SIZE,
      operationTimeoutMs: config.MONGODB_TIMEOUT_MS,
      createIndexes: config.MONGODB_CREATE_INDEXES,
    });
  }
  if (storeKindOf(config) === 'memory') return Promise.resolve(createMemoryStore());
  return createLmdbStore({ dataDir: config.DATA_DIR, logger, migrate, readOnly });
}
