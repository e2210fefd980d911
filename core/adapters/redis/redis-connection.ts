import { Cluster, Redis } from 'ioredis';
import type { RedisTopology } from './redis-topology';

/** The port of a Redis server a URL or a node list names none for. */
export const DEFAULT_REDIS_PORT = 6379;

/** Timings of the Redis connection; the defaults suit a production process. */
export interface RedisConnectionOptions {
  /** How long one command may take before the call falls back (ms). */
  commandTimeoutMs?: number;
  /** How long a connection attempt may take (ms). */
  connectTimeoutMs?: number;
  /** The longest pause between reconnection attempts (ms). */
  maxReconnectDelayMs?: number;
}

/** A single server's client, or a Redis Cluster's. */
export type RedisClient = Redis | Cluster;

/**
 * An ioredis client tuned for a rate limiter, which must answer at once or not at all: commands
 * fail immediately while the connection is down (no offline queue, no retries, so the caller
 * falls back to the insurance limiter instead of waiting), a hung server times out, and the client
 * keeps reconnecting in the background for as long as it lives. The topology decides the kind:
 * a single server, a Cluster (which follows MOVED and ASK itself), or a master found through
 * Sentinel (which moves to the new master after a failover).
 */
export function createRedisClient(
  topology: RedisTopology,
  options: RedisConnectionOptions = {},
): RedisClient {
  const maxDelay = options.maxReconnectDelayMs ?? 2000;
  const retry = (attempt: number) => Math.min(attempt * 100, maxDelay);
  const common = {
    // Shown by CLIENT LIST, so an operator can tell these connections apart.
    connectionName: 'shortlink-ratelimit',
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: options.commandTimeoutMs ?? 2000,
    connectTimeout: options.connectTimeoutMs ?? 5000,
  };
  if (topology.kind === 'standalone') {
    return new Redis(topology.url, {
      ...common,
      enableOfflineQueue: false,
      retryStrategy: retry,
    });
  }
  const credentials = {
    ...(topology.username === undefined ? {} : { username: topology.username }),
    ...(topology.password === undefined ? {} : { password: topology.password }),
    ...(topology.tls ? { tls: {} } : {}),
  };
  if (topology.kind === 'cluster') {
    return new Cluster(topology.nodes, {
      enableOfflineQueue: false,
      clusterRetryStrategy: retry,
      redisOptions: { ...common, ...credentials },
    });
  }
  return new Redis({
    ...common,
    ...credentials,
    enableOfflineQueue: false,
    retryStrategy: retry,
    sentinels: topology.sentinels,
    name: topology.masterName,
    db: topology.db,
    // The sentinels take the same credentials and TLS as the master.
    ...(topology.username === undefined ? {} : { sentinelUsername: topology.username }),
    ...(topology.password === undefined ? {} : { sentinelPassword: topology.password }),
    ...(topology.tls ? { enableTLSForSentinelMode: true } : {}),
    sentinelRetryStrategy: retry,
    // A demoted master answers READONLY until it is left: reconnect, asking the sentinels anew.
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
    // Subscribes to the sentinels' +switch-master, so a failover is followed at once.
    failoverDetector: true,
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
  return `${url.hostname}:${url.port || DEFAULT_REDIS_PORT}${database ? `/${database}` : ''}`;
}

/**
 * The error without the command it answered: ioredis puts the command and its arguments on its
 * errors (`error.command.args`; a Cluster's on the node error it wraps, `lastNodeError`), and
 * those of the connection's handshake hold the password (`HELLO 3 AUTH <user> <password>`,
 * `AUTH <password>`), which a logged error would print. Keeps the name, the message and the
 * command's name.
 */
export function withoutArguments(error: unknown): unknown {
  if (!(error instanceof Error) || !('command' in error || 'lastNodeError' in error)) return error;
  const copy = new Error(error.message);
  copy.name = error.name;
  const command: unknown = 'command' in error ? error.command : undefined;
  if (typeof command === 'object' && command !== null && 'name' in command) {
    Object.assign(copy, { command: { name: String(command.name) } });
  }
  if ('lastNodeError' in error) {
    Object.assign(copy, { lastNodeError: withoutArguments(error.lastNodeError) });
  }
  return copy;
}

type StartupOutcome = { ready: true } | { ready: false; error?: unknown };

/** Resolves once the client is ready, or on its first error, or after `timeoutMs`. */
export function waitUntilReady(client: RedisClient, timeoutMs: number): Promise<StartupOutcome> {
  if (client.status === 'ready') return Promise.resolve({ ready: true });
  return new Promise((resolve) => {
    const settle = (outcome: StartupOutcome) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      resolve(outcome);
    };
    const onReady = () => settle({ ready: true });
    const onError = (error: unknown) => settle({ ready: false, error: withoutArguments(error) });
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
export async function closeRedisClient(client: RedisClient, timeoutMs = 5000): Promise<void> {
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
      // QUIT ends the connection to the master only; under Sentinel the failover detector's
      // connections to the sentinels stay open (and keep the process alive) until disconnect().
      // It is called now, behind the QUIT, while the master's connection is still open: called
      // once that has closed, ioredis would start a timer (its disconnectTimeout, 2 s) for a
      // stream already gone, which would hold the process that long.
      if (usesSentinels(client)) client.disconnect();
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

function usesSentinels(client: RedisClient): client is Redis {
  return client instanceof Redis && (client.options.sentinels?.length ?? 0) > 0;
}
