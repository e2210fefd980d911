import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
const positive = z.coerce.number().int().positive();
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value && value.trim() !== '' ? value.trim() : undefined));
const list = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  );

/** The process configuration (CONTRACT.md §6 plus the documented extensions). */
export const configSchema = z.object({
  PORT: port.default(8080),
  GRPC_PORT: port.default(50051),
  HOST: z.string().min(1).default('127.0.0.1'),
  MONGODB_URI: optionalText,
  REDIS_URL: optionalText,
  RATE_LIMIT_PER_MINUTE: positive.default(60),
  AUTH_FAILURES_PER_MINUTE: positive.default(30),
  SHORTLINK_SEED_FILE: optionalText,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RESERVED_ALIASES: list,
  REDIRECT_CACHE_MAX_AGE: z.coerce.number().int().nonnegative().default(90),
  TRUST_PROXY: optionalText,
  SHUTDOWN_TIMEOUT_MS: positive.default(10000),
});

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  return parsed.data;
}
