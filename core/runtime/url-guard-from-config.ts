import { allowAllUrlGuard } from '../adapters/allow-all-url-guard';
import type { Logger } from '../ports/logger';
import type { Store } from '../ports/store';
import type { UrlGuard } from '../ports/url-guard';
import type { Config } from './config';

export interface ConfiguredUrlGuard {
  guard: UrlGuard;
  close(): Promise<void>;
}

/** The URL guard chain the configuration asks for (pass-through for now). */
export function createUrlGuardFromConfig(
  _config: Config,
  _logger: Logger,
  _store: Store,
): Promise<ConfiguredUrlGuard> {
  return Promise.resolve({ guard: allowAllUrlGuard, close: () => Promise.resolve() });
}
