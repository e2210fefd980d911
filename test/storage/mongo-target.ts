import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { MongoMemoryServer } from 'mongodb-memory-server';
import { DEFAULT_DATABASE } from '../../core/adapters/mongodb';

/** Where the MongoDB run of the storage suite gets its server, or why it cannot run. */
export type MongoAvailability =
  | { available: true; source: 'MONGODB_URI' | 'mongodb-memory-server' }
  | { available: false; reason: string };

/** How long the start-up probe may take (it may download mongod where downloads work). */
const PROBE_TIMEOUT_MS = 45_000;

const PROBE = `
const { MongoMemoryServer } = require('mongodb-memory-server');
MongoMemoryServer.create()
  .then((server) => server.stop())
  .then(
    () => process.exit(0),
    (error) => {
      process.stdout.write('PROBE-FAILED ' + String((error && error.message) || error));
      process.exit(1);
    },
  );
`;

/**
 * Decided synchronously, while jest collects the tests: MONGODB_URI wins; otherwise a child
 * process tries to start mongodb-memory-server (finding or downloading its mongod binary, or
 * MONGOMS_SYSTEM_BINARY) within a bounded time, so a machine without mongod skips quickly.
 */
export function detectMongo(): MongoAvailability {
  if (process.env.MONGODB_URI?.trim()) return { available: true, source: 'MONGODB_URI' };
  const probe = spawnSync(process.execPath, ['-e', PROBE], {
    encoding: 'utf8',
    timeout: PROBE_TIMEOUT_MS,
    cwd: __dirname,
  });
  if (probe.status === 0) return { available: true, source: 'mongodb-memory-server' };
  const said = /PROBE-FAILED ([\s\S]*)/.exec(probe.stdout ?? '')?.[1];
  const why = said
    ? said.replace(/\s+/g, ' ').trim().slice(0, 300)
    : probe.error
      ? probe.error.message
      : `probe exited with ${String(probe.status ?? probe.signal)}`;
  return {
    available: false,
    reason: `MONGODB_URI is not set and mongodb-memory-server could not start mongod (${why})`,
  };
}

/** A running server for the suite: its URI, fresh database names, and cleanup. */
export class MongoTestServer {
  private readonly created: string[] = [];

  private constructor(
    readonly uri: string,
    private readonly admin: MongoClient,
    private readonly baseName: string,
    private readonly memoryServer?: MongoMemoryServer,
  ) {}

  static async start(availability: MongoAvailability & { available: true }) {
    let uri = process.env.MONGODB_URI?.trim() ?? '';
    let memoryServer: MongoMemoryServer | undefined;
    if (availability.source === 'mongodb-memory-server') {
      memoryServer = await MongoMemoryServer.create();
      uri = memoryServer.getUri();
    }
    const admin = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
    await admin.connect();
    const named = admin.options.dbName;
    const baseName = named && named !== 'test' ? named : `${DEFAULT_DATABASE}-test`;
    return new MongoTestServer(uri, admin, baseName, memoryServer);
  }

  /** A database name nobody used yet (dropped in stop()). */
  freshDatabase(): string {
    const name = `${this.baseName.slice(0, 40)}-${randomBytes(6).toString('hex')}`;
    this.created.push(name);
    return name;
  }

  /** The URI with the database path replaced by `dbName` (what a deployment would configure). */
  uriFor(dbName: string): string {
    const [head = '', query] = this.uri.split('?');
    const afterScheme = head.indexOf('://') + 3;
    const slash = head.indexOf('/', Math.max(afterScheme, head.lastIndexOf('@') + 1));
    const hosts = slash === -1 ? head : head.slice(0, slash);
    return `${hosts}/${dbName}${query ? `?${query}` : ''}`;
  }

  get client(): MongoClient {
    return this.admin;
  }

  async stop(): Promise<void> {
    for (const name of this.created.splice(0)) {
      await this.admin.db(name).dropDatabase();
    }
    await this.admin.close();
    await this.memoryServer?.stop();
  }
}
