import { DEFAULT_REDIS_PORT, describeRedisUrl, parseRedisUrl } from './redis-connection';

interface Node {
  host: string;
  port: number;
}

interface Credentials {
  username?: string;
  password?: string;
  tls: boolean;
}

/** What REDIS_URL (and REDIS_SENTINEL_NAME) describe. */
export type RedisTopology =
  | { kind: 'standalone'; url: string }
  | ({ kind: 'cluster'; nodes: Node[] } & Credentials)
  | ({ kind: 'sentinel'; sentinels: Node[]; masterName: string; db: number } & Credentials);

const DEFAULT_SENTINEL_PORT = 26379;

function nodeOf(url: URL, defaultPort: number): Node {
  // IPv6 hosts come bracketed in URLs; the socket wants them bare.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port: url.port ? Number(url.port) : defaultPort };
}

function databaseOf(url: URL): number {
  const path = url.pathname.replace(/^\//, '');
  if (path === '') return 0;
  if (!/^\d+$/.test(path)) throw new Error('REDIS_URL: the database (the path) must be a number');
  return Number(path);
}

/** The credentials and TLS choice shared by every URL of a list, which must agree on them. */
function sharedCredentials(urls: URL[]): Credentials {
  const first = urls[0]!;
  const same = urls.every(
    (url) =>
      url.protocol === first.protocol &&
      url.username === first.username &&
      url.password === first.password,
  );
  if (!same) {
    throw new Error('REDIS_URL: every URL of the list must use the same scheme and credentials');
  }
  return {
    ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
    ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
    tls: first.protocol === 'rediss:',
  };
}

/**
 * Reads REDIS_URL: one `redis://` or `rediss://` URL is a single server; a comma-separated list of
 * node URLs is a Redis Cluster (any reachable nodes: the client learns the rest); with
 * REDIS_SENTINEL_NAME the list names the sentinels watching that master (port 26379 unless
 * given). Errors never repeat the URLs, which may hold passwords.
 */
export function parseRedisTopology(value: string, sentinelName?: string): RedisTopology {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) throw new Error('REDIS_URL is empty');
  const urls = items.map(parseRedisUrl);
  if (sentinelName) {
    return {
      kind: 'sentinel',
      sentinels: urls.map((url) => nodeOf(url, DEFAULT_SENTINEL_PORT)),
      masterName: sentinelName,
      db: databaseOf(urls[0]!),
      ...sharedCredentials(urls),
    };
  }
  if (urls.length === 1) return { kind: 'standalone', url: items[0]! };
  if (urls.some((url) => databaseOf(url) !== 0)) {
    throw new Error('REDIS_URL: a Redis Cluster has only database 0; drop the path');
  }
  return {
    kind: 'cluster',
    nodes: urls.map((url) => nodeOf(url, DEFAULT_REDIS_PORT)),
    ...sharedCredentials(urls),
  };
}

/** For logs: the hosts and the kind, never the credentials. */
export function describeTopology(topology: RedisTopology): string {
  const list = (nodes: Node[]) => nodes.map((node) => `${node.host}:${node.port}`).join(',');
  switch (topology.kind) {
    case 'standalone':
      return describeRedisUrl(parseRedisUrl(topology.url));
    case 'cluster':
      return `cluster ${list(topology.nodes)}`;
    case 'sentinel':
      return `sentinel master "${topology.masterName}" via ${list(topology.sentinels)}`;
  }
}
