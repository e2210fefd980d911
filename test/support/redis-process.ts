import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { eventually, LONG_WAIT_MS } from './eventually';
import { freePort } from './free-port';

/** The machine's shared Redis: other suites use it concurrently, so it is never stopped. */
export const SHARED_REDIS_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix no other test run uses, so suites sharing one Redis keep apart. */
export function uniqueKeyPrefix(name: string): string {
  return `shortlink-test:${name}:${process.pid}:${Math.random().toString(36).slice(2, 10)}`;
}

/** Resolves true when a Redis at `port` answers PING with PONG. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

/**
 * A private redis-server child process (no persistence) that a test may stop and start again on
 * the same port, to play an outage without touching the shared instance.
 */
export class RedisProcess {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(port?: number): Promise<RedisProcess> {
    const redis = new RedisProcess(port ?? (await freePort()));
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error('redis-server already running');
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    this.child = child;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let gone = false;
    void exited.then(() => (gone = true));
    await eventually(
      async () => {
        if (gone) throw new Error(`redis-server on port ${this.port} exited at start`);
        return answersPing(this.port);
      },
      `redis-server on port ${this.port}`,
      LONG_WAIT_MS,
    );
  }

  /** Freezes the server (SIGSTOP): connections stay open but nothing is answered. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** Kills the server outright, as a crash or a network cut would end it. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }
}
