import { createHash, randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { prepareDataDir } from '../adapters/lmdb/data-dir';
import type { Logger } from '../ports/logger';
import { storeKindOf, type Config } from './config';
import { ConfigError } from './settings';

/**
 * How a service on an LMDB DATA_DIR counts its rate limits: `local` in its own memory (one process,
 * or a WORKERS cluster's primary for all its workers), `shared` in Redis.
 */
type LimitsScope = 'local' | 'shared';

export interface DataDirClaim {
  release(): Promise<void>;
}

/** What a service holds where no claim is made (another store, another system). */
const NO_CLAIM: DataDirClaim = { release: () => Promise.resolve() };

/** Where Linux lists every Unix socket of this network namespace, abstract names with `@`. */
const UNIX_SOCKETS_TABLE = '/proc/net/unix';
const NAME_PREFIX = 'shortlink-data-dir';

interface Holder {
  scope: LimitsScope;
  /**
   * The holder's pid and a random nonce (`4242-<uuid>`): unique even between processes that see
   * the same pid (containers sharing a network namespace but not a pid namespace), and between
   * two claims of one process.
   */
  claim: string;
}

const pidOf = (holder: Holder) => holder.claim.split('-')[0];

/** The services holding a claim on the directory `id`, as /proc/net/unix lists them. */
async function holdersOf(id: string): Promise<Holder[]> {
  const table = await readFile(UNIX_SOCKETS_TABLE, 'utf8');
  const prefix = `@${NAME_PREFIX}.${id}.`;
  const holders: Holder[] = [];
  for (const line of table.split('\n')) {
    // libuv binds the whole sun_path, so the name ends in NUL padding, shown as `@` too.
    const name = line.trim().split(/\s+/)[7]?.replace(/@+$/, '');
    if (!name?.startsWith(prefix)) continue;
    const [scope, claim] = name.slice(prefix.length).split('.');
    if ((scope === 'local' || scope === 'shared') && claim) holders.push({ scope, claim });
  }
  return holders;
}

function listenOn(name: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    // Whoever connects learns nothing: the name itself is the claim.
    const server = createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen({ path: `\0${name}` }, () => {
      server.off('error', reject);
      // The claim never keeps the process alive.
      server.unref();
      resolve(server);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

function refusal(path: string, scope: LimitsScope, others: Holder[]): string | undefined {
  const pids = (wanted: LimitsScope[]) =>
    others
      .filter((holder) => wanted.includes(holder.scope))
      .map(pidOf)
      .join(', ');
  if (scope === 'local' && others.length > 0) {
    return `DATA_DIR ${path} is already served by another shortlink service (pid ${pids(['local', 'shared'])}); a second one counting rate limits in its own memory would let one token exceed RATE_LIMIT_PER_MINUTE. Stop that one, run more processes with WORKERS, or give every process the same REDIS_URL`;
  }
  const local = pids(['local']);
  if (scope === 'shared' && local !== '') {
    return `DATA_DIR ${path} is already served by a shortlink service (pid ${local}) that counts rate limits in its own memory, not in Redis; give it the same REDIS_URL, or stop it`;
  }
  return undefined;
}

/**
 * The contract counts each token's rate limit across every process that shares the store. On
 * LMDB several processes share one DATA_DIR, but limits counted in memory are one process's (or
 * one WORKERS cluster's). So a service claims its DATA_DIR and says how it counts: a service that
 * counts locally must be the only one on the directory, and services counting in Redis must not
 * meet one that counts locally. Anything else is refused here, at start-up, with a ConfigError.
 *
 * The claim is a Unix socket with an abstract name (Linux) that names the directory (by device and
 * inode, so every path to it gives the same name), the scope and the pid: the kernel drops it when
 * the process ends, however it ends, so no stale claim outlives a crash. Each claimant publishes
 * its name and then reads the others', so of two services starting together at least one sees the
 * other. Elsewhere than on Linux no claim is made (logged at debug).
 */
export async function claimDataDir(
  dataDir: string,
  scope: LimitsScope,
  logger: Logger,
): Promise<DataDirClaim> {
  if (process.platform !== 'linux') {
    logger.debug({ dataDir }, 'DATA_DIR not claimed: claims need Linux');
    return NO_CLAIM;
  }
  const path = await prepareDataDir(dataDir);
  const { dev, ino } = await stat(path);
  const id = createHash('sha256').update(`${dev}:${ino}`).digest('hex').slice(0, 24);
  const own = `${process.pid}-${randomUUID()}`;
  let server: Server;
  let holders: Holder[];
  try {
    server = await listenOn(`${NAME_PREFIX}.${id}.${scope}.${own}`);
  } catch (error) {
    // The name is unique, so this is no collision: the system has no abstract Unix sockets.
    logger.warn({ dataDir: path, err: error }, 'DATA_DIR not claimed: no abstract Unix socket');
    return NO_CLAIM;
  }
  const release = () => closeServer(server);
  try {
    holders = await holdersOf(id);
  } catch (error) {
    logger.warn(
      { dataDir: path, err: error },
      `DATA_DIR not checked: ${UNIX_SOCKETS_TABLE} unread`,
    );
    return { release };
  }
  const refused = refusal(
    path,
    scope,
    holders.filter((holder) => holder.claim !== own),
  );
  if (refused !== undefined) {
    await release();
    throw new ConfigError(refused);
  }
  return { release };
}

/**
 * The claim a service (one process, or a WORKERS cluster's primary) makes on the LMDB DATA_DIR it
 * serves from, with the scope its configuration counts rate limits in; none for the in-memory
 * store or MongoDB, whose limits are one process's or MongoDB's own.
 */
export function claimServedDataDir(config: Config, logger: Logger): Promise<DataDirClaim> {
  if (storeKindOf(config) !== 'lmdb') return Promise.resolve(NO_CLAIM);
  return claimDataDir(config.DATA_DIR, config.REDIS_URL ? 'shared' : 'local', logger);
}
