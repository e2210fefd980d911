import { z } from 'zod';
import { configSchema, parseSettings, settingsRules } from '../core/runtime';
import { GRPC_SETTINGS } from '../gateway-grpc/grpc-config';
import { HTTP_SETTINGS } from './http-config';

/**
 * Every environment variable of `npm start`, in one schema: the core's and the process's
 * (core/runtime/config.ts), the REST gateway's (http-config.ts) and the gRPC gateway's
 * (gateway-grpc/grpc-config.ts). Each variable is declared once, in one of those, and the settings
 * both gateways read (HOST, TRUST_PROXY) once for both (core/runtime/settings.ts); the rules
 * between settings once, in core/runtime/config.ts (settingsRules). The READMEs'
 * settings tables are checked against this schema (test/docs/settings-tables.test.ts).
 */
export const serviceSettingsSchema = z
  .object({ ...configSchema.shape, ...HTTP_SETTINGS, ...GRPC_SETTINGS })
  .superRefine(settingsRules);

export type ServiceSettings = z.output<typeof serviceSettingsSchema>;

/** Reads the environment once; every problem of every setting is named in one ConfigError. */
export function loadServiceSettings(env: NodeJS.ProcessEnv = process.env): ServiceSettings {
  return parseSettings(serviceSettingsSchema, env);
}
