import { z } from 'zod';
import { compileTrustProxy } from './trust-proxy';

/**
 * Building blocks of the environment schemas: the core's (config.ts) and each gateway's own, so
 * every setting is parsed and reported the same way wherever it is declared.
 */
export const portSetting = z.coerce.number().int().min(0).max(65535);
export const positiveSetting = z.coerce.number().int().positive();
export const optionalTextSetting = z
  .string()
  .optional()
  .transform((value) => (value && value.trim() !== '' ? value.trim() : undefined));
export const listSetting = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  );
/** HOST: the address every gateway binds (both read it, so it is declared once, here). */
export const hostSetting = z.string().min(1).default('127.0.0.1');

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses `env` with `schema`; every problem is named in one ConfigError. */
export function parseSettings<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.output<T> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  return parsed.data;
}

/**
 * TRUST_PROXY: the proxies in front (a hop count or addresses/subnets; `true` is refused). Both
 * gateways read it, so it is declared and validated once, here.
 */
export const trustProxySetting = optionalTextSetting.superRefine((value, ctx) => {
  if (value === undefined) return;
  try {
    compileTrustProxy(value);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});
