import { Redis } from 'ioredis';

/** Timings of the Redis connection; the defaults suit a production process. */
export interface RedisConnectionOptions {
  /** How long one command may take before the call falls back (ms). */
  commandTimeoutMs?: number;
  /** How long a connection attempt may take (ms). */
  connectTimeoutMs?: number;
  /** The longest pause between reconnection attempts (ms). */
  maxReconnectDelayMs?: number;
}

/**
 * An ioredis client tuned for a rate limiter, which must answer at once or not at all: commands
 * fail immediately while the connection is down (no offline queue, no retries, so the caller
 * falls back to the insurance limiter instead of waiting), a hung server times out, and the client
 * keeps reconnecting in the background for as long as it lives.
 */
export function createRedisClient(url: string, options: RedisConnectionOptions = {}): Redis {
  const maxDelay = options.maxReconnectDelayMs ?? 2000;
  return new Redis(url, {
    // Shown by CLIENT LIST, so an operator can tell these connections apart.
    connectionName: 'shortlink-ratelimit',
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: options.commandTimeoutMs ?? 2000,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    retryStrategy: (attempt) => Math.min(attempt * 100, maxDelay),
  });
}

/**
 * The parsed REDIS_URL. Anything but a `redis://` or `rediss://` URL is refused at start-up: ioredis
 * would take a typo for a host name and retry it forever. The message never repeats the URL,
 * which may hold a password.
 */
export function parseRedisUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('REDIS_URL is not a URL; expected redis://[user:password@]host[:port][/db]');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new Error('REDIS_URL must start with redis:// or rediss://');
  }
  return parsed;
}

/** host:port (and database) of a Redis URL, for logs: never its user or password. */
export function describeRedisUrl(url: URL): string {
  const database = url.pathname.replace(/^\//, '');
  return `${url.hostname}:${url.port || '6379'}${database ? `/${database}` : ''}`;
}

export type StartupOutcome = { ready: true } | { ready: false; error?: unknown };

/** Resolves once the client is ready, or on its first error, or after `timeoutMs`. */
export function waitUntilReady(client: Redis, timeoutMs: number): Promise<StartupOutcome> {
  if (client.status === 'ready') return Promise.resolve({ ready: true });
  return new Promise((resolve) => {
    const settle = (outcome: StartupOutcome) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      resolve(outcome);
    };
    const onReady = () => settle({ ready: true });
    const onError = (error: unknown) => settle({ ready: false, error });
    const timer = setTimeout(
      () => settle({ ready: false, error: new Error(`no connection within ${timeoutMs} ms`) }),
      timeoutMs,
    );
    client.once('ready', onReady);
    client.once('error', onError);
  });
}

/**
 * Ends the connection and resolves once it is closed: QUIT when it is up (the replies still due
 * arrive first), else just stop reconnecting.
 */
export async function closeRedisClient(client: Redis, timeoutMs = 5000): Promise<void> {
  if (client.status === 'end') return;
  const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    if (client.status === 'ready') {
      // A server that went away meanwhile rejects the QUIT: then nothing is left to close politely.
      const quit = client.quit().then(() => ended);
      if ((await Promise.race([quit, timedOut])) !== 'timeout') return;
    }
    client.disconnect();
    // Between two reconnection attempts there is no socket to close: disconnect() only cancels
    // the next attempt, and ioredis emits no 'end'. Nothing is left running then.
    if (client.status === 'reconnecting') return;
    await Promise.race([ended, timedOut]);
  } catch {
    client.disconnect();
  } finally {
    clearTimeout(timer);
  }
}
