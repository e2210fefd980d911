import { ConfigError, IN_MEMORY_DATA_DIR, storeKindOf, type Config } from '../config';

/**
 * WORKERS > 1 needs a store every worker shares: the in-memory store lives inside one process, so
 * each worker would hold its own links and credentials. Refused at start rather than served wrong.
 */
export function refuseUnsharedStore(config: Config): void {
  if (config.WORKERS > 1 && storeKindOf(config) === 'memory') {
    throw new ConfigError(
      `WORKERS=${config.WORKERS} needs a store the worker processes share, but DATA_DIR=${IN_MEMORY_DATA_DIR} keeps everything inside one process; give DATA_DIR a directory (the LMDB store, default ./data) or set MONGODB_URI, or use WORKERS=1`,
    );
  }
}
