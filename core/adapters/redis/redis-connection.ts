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
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: options.commandTimeoutMs ?? 2000,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    retryStrategy: (attempt) => Math.min(attempt * 100, maxDelay),
  });
}

/** host:port (and database) of a Redis URL, for logs: never its user or password. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const database = parsed.pathname.replace(/^\//, '');
    return `${parsed.hostname}:${parsed.port || '6379'}${database ? `/${database}` : ''}`;
  } catch {
    return 'redis (unparsable URL)';
  }
}

/** Resolves true once the client is ready, false on its first error or after `timeoutMs`. */
export function waitUntilReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const settle = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      resolve(ready);
    };
    const onReady = () => settle(true);
    const onError = () => settle(false);
    const timer = setTimeout(() => settle(false), timeoutMs);
    client.once('ready', onReady);
    client.once('error', onError);
  });
}

/** Ends the connection: QUIT when it is up (pending replies arrive first), else just stop. */
export async function closeRedisClient(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // The server went away while quitting: nothing left to say goodbye to.
    }
  }
  client.disconnect();
}
