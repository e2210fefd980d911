import { ConfigError, type Config } from '../config';

/**
 * WORKERS > 1 needs a store every worker shares: the in-memory store lives inside one process, so
 * each worker would hold its own links and credentials. Refused at start rather than served wrong.
 */
export function refuseUnsharedStore(config: Config): void {
  if (config.WORKERS > 1 && !config.MONGODB_URI) {
    throw new ConfigError(
      `WORKERS=${config.WORKERS} needs a store the worker processes share, but the in-memory store lives in one process; set MONGODB_URI, or use WORKERS=1`,
    );
  }
}
