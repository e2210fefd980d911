import { z } from 'zod';
import { hostSetting, parseSettings, portSetting, trustProxySetting } from '../core';

/** The REST gateway's own settings, from the environment. */
export const httpConfigSchema = z.object({
  PORT: portSetting.default(8080),
  HOST: hostSetting,
  /** max-age of Cache-Control on 301/308 redirects. */
  REDIRECT_CACHE_MAX_AGE: z.coerce.number().int().nonnegative().default(90),
  TRUST_PROXY: trustProxySetting,
  /** Open connections allowed per client address on the REST port; 0 = no cap. */
  MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().nonnegative().default(0),
});

export type HttpConfig = z.output<typeof httpConfigSchema>;

export function loadHttpConfig(env: NodeJS.ProcessEnv = process.env): HttpConfig {
  return parseSettings(httpConfigSchema, env);
}
