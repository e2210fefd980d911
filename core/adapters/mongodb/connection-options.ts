import type { MongoClientOptions } from 'mongodb';

/**
 * Defaults applied unless the URI names the option itself. The driver lets constructor options
 * win over URI options, so a default is only passed for a key the URI leaves out: that keeps
 * `?w=1` or `?serverSelectionTimeoutMS=30000` in MONGODB_URI authoritative.
 */
export const MONGO_DEFAULTS = {
  /** Acknowledged by a majority of the replica set: a created link survives a failover. */
  w: 'majority',
  retryWrites: true,
  /**
   * How long an operation waits for a usable server before failing (then 503 BACKEND_UNAVAILABLE).
   */
  serverSelectionTimeoutMS: 5000,
  connectTimeoutMS: 5000,
  /** A socket silent this long is dropped, so a server that stops answering cannot hang us. */
  socketTimeoutMS: 10000,
  /**
   * Connections per server this process may open for operations (the driver's default is 100).
   * With many processes the sum must stay under what the servers accept; see the README's
   * connection budget. `?maxPoolSize=` in the URI overrides it.
   */
  maxPoolSize: 10,
  appName: 'shortlink',
} as const satisfies MongoClientOptions;

/** The database used when the URI names none (the driver itself would pick `test`). */
export const DEFAULT_DATABASE = 'shortlink';

/** Lower-case names of the options written in the URI's query string. */
function uriOptionNames(uri: string): Set<string> {
  const query = uri.includes('?') ? uri.slice(uri.indexOf('?') + 1) : '';
  return new Set([...new URLSearchParams(query).keys()].map((key) => key.toLowerCase()));
}

export function mongoClientOptions(uri: string): MongoClientOptions {
  const named = uriOptionNames(uri);
  const options: MongoClientOptions = {};
  for (const [key, value] of Object.entries(MONGO_DEFAULTS)) {
    if (!named.has(key.toLowerCase())) Object.assign(options, { [key]: value });
  }
  return options;
}

/** The database named in the URI path (`mongodb://host/<db>?...`), or the default. */
export function databaseNameFromUri(uri: string): string {
  const afterScheme = uri.slice(uri.indexOf('://') + 3).split('?')[0] ?? '';
  // Credentials may contain '/' only percent-encoded, so the first '/' after '@' ends the hosts.
  const slash = afterScheme.indexOf('/', afterScheme.lastIndexOf('@') + 1);
  const name = slash === -1 ? '' : decodeURIComponent(afterScheme.slice(slash + 1));
  return name === '' ? DEFAULT_DATABASE : name;
}
