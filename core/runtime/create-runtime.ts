import { createNanoidAliasGenerator } from '../adapters/nanoid-alias-generator';
import { systemClock } from '../adapters/system-clock';
import { createCore, type Core } from '../core';
import { reservedAliasSet } from '../links/reserved-aliases';
import type { Logger } from '../ports/logger';
import { provisionDemo, type DemoCredentials } from '../provisioning/demo';
import { Provisioner } from '../provisioning/provisioner';
import { loadSeedFile } from '../provisioning/seed-file';
import type { Config } from './config';
import { createLimitersFromConfig } from './limiters-from-config';
import { createStoreFromConfig } from './store-from-config';
import { createUrlGuardFromConfig } from './url-guard-from-config';

export interface Runtime {
  readonly core: Core;
  readonly config: Config;
  /** Set when the demo organization and token were created at start-up. */
  readonly demo: DemoCredentials | undefined;
  close(): Promise<void>;
}

/**
 * The composition root shared by every entry point: builds the store, the limiters and the URL
 * guard the configuration asks for, then the core, then provisions (seed file or demo).
 */
export async function createRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const closers: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close();
  };
  try {
    const store = await createStoreFromConfig(config, logger);
    closers.push(() => store.close());
    const limiters = await createLimitersFromConfig(config, logger);
    closers.push(() => limiters.close());
    const urlGuard = await createUrlGuardFromConfig(config, logger, store);
    closers.push(() => urlGuard.close());

    const core = createCore({
      store,
      rateLimiter: limiters.perToken,
      authFailureLimiter: limiters.authFailures,
      urlGuard: urlGuard.guard,
      clock: systemClock,
      aliasGenerator: createNanoidAliasGenerator(),
      reservedAliases: reservedAliasSet(config.RESERVED_ALIASES),
      logger,
    });

    const provisioner = new Provisioner(store.identities, systemClock);
    let demo: DemoCredentials | undefined;
    if (config.SHORTLINK_SEED_FILE) {
      const counts = await loadSeedFile(provisioner, config.SHORTLINK_SEED_FILE);
      logger.info({ ...counts, file: config.SHORTLINK_SEED_FILE }, 'seed file applied');
    } else if (store.kind === 'memory') {
      demo = await provisionDemo(provisioner, config.PORT);
    }
    return { core, config, demo, close: closeAll };
  } catch (error) {
    await closeAll().catch(() => undefined);
    throw error;
  }
}
