import { isIP } from 'node:net';
import { z } from 'zod';
import { compileTrustProxy } from './trust-proxy';

/**
 * Building blocks of the environment schemas: the core's (config.ts) and each gateway's own, so
 * every setting is parsed and reported the same way wherever it is declared.
 */
export const portSetting = z.coerce.number().int().min(0).max(65535);
export const positiveSetting = z.coerce.number().int().positive();
/** A whole number, 0 allowed (0 often means "none" or "off"). */
export const nonnegativeSetting = z.coerce.number().int().nonnegative();

/** The longest delay a Node.js timer keeps (2^31 - 1 ms, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
const timerLimit = (most: number) =>
  `must be at most ${most} (a Node.js timer waits at most 2^31 - 1 ms, about 24.8 days)`;
/** A delay in milliseconds that a timer waits. */
export const timerMsSetting = nonnegativeSetting.max(MAX_TIMER_MS, timerLimit(MAX_TIMER_MS));
/** A positive delay in milliseconds that a timer waits. */
export const positiveTimerMsSetting = timerMsSetting.positive();
/** A positive period in seconds that a timer waits (in milliseconds, so at most MAX_TIMER_MS). */
export const positiveTimerSecondsSetting = positiveSetting.max(
  Math.floor(MAX_TIMER_MS / 1000),
  timerLimit(Math.floor(MAX_TIMER_MS / 1000)),
);

/**
 * The most entries an in-process table may be given (caches, limiter windows): lru-cache
 * allocates its arrays for `max` entries up front and keeps its keys in one Map, which cannot
 * hold 2^24 entries.
 */
export const MAX_IN_PROCESS_ENTRIES = 10_000_000;
const entriesLimit = `must be at most ${MAX_IN_PROCESS_ENTRIES} (entries are allocated up front, in one process)`;
/** A count of in-process entries, 0 allowed (0 = none). */
export const entriesSetting = nonnegativeSetting.max(MAX_IN_PROCESS_ENTRIES, entriesLimit);
/** A positive count of in-process entries. */
export const positiveEntriesSetting = entriesSetting.positive();
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
/** A yes/no setting: `1` or `true` is yes; `0`, `false` or unset is no. */
export const flagSetting = z
  .enum(['0', '1', 'false', 'true'], {
    message: 'must be 1 (or true) for yes, 0 (or false) for no',
  })
  .optional()
  .transform((value) => value === '1' || value === 'true');

/** A DNS host name (`localhost`, `metrics.internal`): labels of letters, digits and hyphens. */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/**
 * An address a server binds: an IP address (IPv6 without brackets) or a host name; refused when
 * it holds a port, a scheme or anything else, so a mistake is named at start rather than by a
 * failing listen.
 */
export const bindAddressSetting = z
  .string()
  .trim()
  .refine(
    (value) => isIP(value) !== 0 || HOST_NAME.test(value),
    'must be an IP address (IPv6 without brackets) or a host name, with no port or scheme',
  );

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Whether a setting's schema is a number (under its default): coerced from the text with Number. */
function isNumberSetting(schema: z.ZodType): boolean {
  let inner: z.ZodType = schema;
  while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional) {
    inner = inner.unwrap() as z.ZodType;
  }
  return inner instanceof z.ZodNumber;
}

/**
 * The number settings of `schema` that `env` sets to an empty or blank value. Coercion reads
 * such a value as 0 (`Number('')`), which would start the service on a random port (PORT,
 * GRPC_PORT), with metrics off (METRICS_PORT) or a cache off rather than refuse it: a
 * `PORT=${PORT}` in a deployment file whose variable is unset would go unnoticed.
 */
function blankNumberSettings(schema: z.ZodType, env: NodeJS.ProcessEnv): string[] {
  if (!(schema instanceof z.ZodObject)) return [];
  const shape = schema.shape as Record<string, z.ZodType>;
  return Object.keys(shape).filter((name) => {
    const value = env[name];
    return value !== undefined && value.trim() === '' && isNumberSetting(shape[name]!);
  });
}

/** Parses `env` with `schema`; every problem is named in one ConfigError. */
export function parseSettings<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.output<T> {
  const blank = blankNumberSettings(schema, env);
  const parsed = schema.safeParse(env);
  if (!parsed.success || blank.length > 0) {
    const problems = [
      ...blank.map(
        (name) => `${name}: is set but empty (give a number, or unset it for its default)`,
      ),
      ...(parsed.success ? [] : parsed.error.issues)
        .filter((issue) => !blank.includes(String(issue.path[0])))
        .map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    ].join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  return parsed.data;
}

/**
 * TRUST_PROXY: the proxies in front (a hop count or addresses/subnets; `true` is refused), by
 * whose `X-Forwarded-For` (REST) or `x-forwarded-for` metadata (gRPC) the client is named.
 */
const trustProxySetting = optionalTextSetting.superRefine((value, ctx) => {
  if (value === undefined) return;
  try {
    compileTrustProxy(value);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

/**
 * The settings every gateway reads, declared once: each gateway's schema and the core's spread
 * this shape rather than declaring the variables again.
 */
export const SHARED_GATEWAY_SETTINGS = {
  /** The address both gateways bind (`0.0.0.0` to serve other machines); the demo prints it. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** The proxies in front, whose forwarded client address both gateways believe; unset: none. */
  TRUST_PROXY: trustProxySetting,
};
