import { z } from 'zod';
import {
  nonnegativeSetting,
  parseSettings,
  portSetting,
  SHARED_GATEWAY_SETTINGS,
} from '../core/runtime';

/** max-age (seconds) of Cache-Control on 301/308 redirects unless REDIRECT_CACHE_MAX_AGE says. */
export const DEFAULT_REDIRECT_CACHE_MAX_AGE = 90;

/** RFC 9111 (1.2.2): caches read any larger delta-seconds as 2^31, so a larger max-age means nothing more. */
const MAX_CACHE_DELTA_SECONDS = 2 ** 31;

/** The REST gateway's own settings (and the ones every gateway reads), from the environment. */
export const HTTP_SETTINGS = {
  /** The REST port (0: any free port). */
  PORT: portSetting.default(8080),
  /** max-age of Cache-Control on 301/308 redirects. */
  REDIRECT_CACHE_MAX_AGE: nonnegativeSetting
    .max(
      MAX_CACHE_DELTA_SECONDS,
      `must be at most ${MAX_CACHE_DELTA_SECONDS} (RFC 9111's largest delta-seconds)`,
    )
    .default(DEFAULT_REDIRECT_CACHE_MAX_AGE),
  /** Open connections allowed per client address on the REST port; 0 = no cap. */
  MAX_CONNECTIONS_PER_ADDRESS: nonnegativeSetting.default(0),
};
const httpConfigSchema = z.object({ ...SHARED_GATEWAY_SETTINGS, ...HTTP_SETTINGS });

export type HttpConfig = z.output<typeof httpConfigSchema>;

export function loadHttpConfig(env: NodeJS.ProcessEnv = process.env): HttpConfig {
  return parseSettings(httpConfigSchema, env);
}
