import { eventually, LONG_WAIT_MS } from './eventually';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

const run = promisify(execFile);

/**
 * Ports for the private Redis processes of these tests. With REDIS_TEST_PORT_BASE set (a machine
 * where engineers are handed port ranges) they are base + offset; otherwise free ports. A Cluster
 * node also listens on its port + 10000 (the cluster bus), which must be free too.
 */
async function portAt(offset: number): Promise<number> {
  const base = Number(process.env.REDIS_TEST_PORT_BASE ?? '');
  if (Number.isInteger(base) && base > 0) return base + offset;
  return freePort(10_000);
}

/** redis-cli against 127.0.0.1:port; its answer as text. */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args]);
  return stdout.trim();
}

/** Private redis-server processes in one scratch directory; stop() kills them all. */
class ProcessGroup {
  private readonly children: ChildProcess[] = [];
  readonly dir = mkdtempSync(join(tmpdir(), 'shortlink-redis-'));

  async spawn(port: number, args: string[]): Promise<void> {
    const child = spawn('redis-server', args, { stdio: 'ignore', cwd: this.dir });
    this.children.push(child);
    let gone = false;
    child.once('exit', () => (gone = true));
    await eventually(
      async () => {
        if (gone) throw new Error(`redis-server on port ${port} exited at start`);
        return (await redisCli(port, 'PING').catch(() => '')) === 'PONG';
      },
      `redis on port ${port}`,
      LONG_WAIT_MS,
    );
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const NO_PERSISTENCE = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];

/** A Redis Cluster of three masters (no replicas), made with `redis-cli --cluster create`. */
export class RedisClusterProcesses {
  private constructor(
    private readonly group: ProcessGroup,
    readonly ports: number[],
  ) {}

  static async start(firstOffset = 10): Promise<RedisClusterProcesses> {
    const group = new ProcessGroup();
    const ports = [
      await portAt(firstOffset),
      await portAt(firstOffset + 1),
      await portAt(firstOffset + 2),
    ];
    const cluster = new RedisClusterProcesses(group, ports);
    try {
      for (const port of ports) {
        await group.spawn(port, [
          '--port',
          String(port),
          ...NO_PERSISTENCE,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
        ]);
      }
      await run('redis-cli', [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ]);
      for (const port of ports) {
        await eventually(
          async () => (await redisCli(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'),
          `cluster state ok on ${port}`,
          LONG_WAIT_MS,
        );
      }
      return cluster;
    } catch (error) {
      await group.stop();
      throw error;
    }
  }

  /** REDIS_URL for the cluster: every node, comma-separated. */
  get url(): string {
    return this.ports.map((port) => `redis://127.0.0.1:${port}`).join(',');
  }

  /** The port of the master serving `key`'s slot. */
  async ownerOf(key: string): Promise<number> {
    const slot = Number(await redisCli(this.ports[0]!, 'CLUSTER', 'KEYSLOT', key));
    for (const port of this.ports) {
      const nodes = await redisCli(port, 'CLUSTER', 'NODES');
      const self = nodes.split('\n').find((line) => line.includes('myself'))!;
      const ranges = self.split(' ').slice(8);
      for (const range of ranges) {
        const [from, to] = range.split('-').map(Number);
        if (slot >= from! && slot <= (to ?? from!)) return port;
      }
    }
    throw new Error(`no owner for slot ${slot}`);
  }

  stop(): Promise<void> {
    return this.group.stop();
  }
}

export const SENTINEL_MASTER_NAME = 'shortlink-test-master';

/** A master, its replica and one sentinel watching them (quorum 1, quick failover). */
export class SentinelProcesses {
  private constructor(
    private readonly group: ProcessGroup,
    readonly masterPort: number,
    readonly replicaPort: number,
    readonly sentinelPort: number,
  ) {}

  static async start(firstOffset = 20): Promise<SentinelProcesses> {
    const group = new ProcessGroup();
    const [master, replica, sentinel] = [
      await portAt(firstOffset),
      await portAt(firstOffset + 1),
      await portAt(firstOffset + 2),
    ];
    const set = new SentinelProcesses(group, master, replica, sentinel);
    try {
      await group.spawn(master, ['--port', String(master), ...NO_PERSISTENCE]);
      await group.spawn(replica, [
        '--port',
        String(replica),
        ...NO_PERSISTENCE,
        '--replicaof',
        '127.0.0.1',
        String(master),
      ]);
      await eventually(
        async () =>
          (await redisCli(replica, 'INFO', 'replication')).includes('master_link_status:up'),
        'replica in sync',
        LONG_WAIT_MS,
      );
      const config = join(group.dir, 'sentinel.conf');
      writeFileSync(
        config,
        [
          `port ${sentinel}`,
          'bind 127.0.0.1',
          `sentinel monitor ${SENTINEL_MASTER_NAME} 127.0.0.1 ${master} 1`,
          `sentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} 1000`,
          `sentinel failover-timeout ${SENTINEL_MASTER_NAME} 5000`,
          '',
        ].join('\n'),
      );
      await group.spawn(sentinel, [config, '--sentinel']);
      await eventually(
        async () =>
          (await redisCli(sentinel, 'SENTINEL', 'REPLICAS', SENTINEL_MASTER_NAME)).includes(
            String(replica),
          ),
        'sentinel sees the replica',
        LONG_WAIT_MS,
      );
      return set;
    } catch (error) {
      await group.stop();
      throw error;
    }
  }

  /** REDIS_URL for Sentinel mode (with REDIS_SENTINEL_NAME = SENTINEL_MASTER_NAME). */
  get url(): string {
    return `redis://127.0.0.1:${this.sentinelPort}`;
  }

  /** The port the sentinel currently names as master. */
  async currentMasterPort(): Promise<number> {
    const answer = await redisCli(
      this.sentinelPort,
      'SENTINEL',
      'GET-MASTER-ADDR-BY-NAME',
      SENTINEL_MASTER_NAME,
    );
    return Number(answer.split('\n')[1]);
  }

  /** Asks the sentinel to fail over and waits until the replica is the master. */
  async failover(): Promise<void> {
    await redisCli(this.sentinelPort, 'SENTINEL', 'FAILOVER', SENTINEL_MASTER_NAME);
    await eventually(
      async () => {
        const role = await redisCli(this.replicaPort, 'ROLE').catch(() => '');
        return role.startsWith('master') && (await this.currentMasterPort()) === this.replicaPort;
      },
      'failover to the replica',
      LONG_WAIT_MS,
    );
  }

  stop(): Promise<void> {
    return this.group.stop();
  }
}
