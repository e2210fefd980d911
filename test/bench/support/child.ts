import { fork, type ChildProcess } from 'node:child_process';
import { isAbsolute, join } from 'node:path';

/** Messages a bench child sends its parent over the IPC channel. */
export type ChildMessage =
  | { type: 'ready'; [key: string]: unknown }
  | { type: 'result'; [key: string]: unknown }
  | { type: 'failed'; message: string };

export interface BenchChild<TReady> {
  readonly process: ChildProcess;
  /** What the child announced with its `ready` message (ports, credentials). */
  readonly ready: TReady;
  /** Asks the child to finish (a profile, when one is written, needs a normal exit). */
  stop(): Promise<void>;
}

export interface ForkOptions {
  env?: Record<string, string>;
  execArgv?: string[];
  /** Milliseconds to wait for the child's first message. */
  timeoutMs?: number;
}

/**
 * The compiled module `name` (e.g. "servers/bare-express") next to this file's directory, or at
 * `name` itself when it is an absolute path (a module of another build).
 */
export function benchModule(name: string): string {
  return isAbsolute(name) ? `${name}.js` : join(__dirname, '..', `${name}.js`);
}

function firstMessage(child: ChildProcess, name: string, timeoutMs: number): Promise<ChildMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      child.kill('SIGKILL');
      reject(new Error(`${name}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (message: ChildMessage) => {
      cleanup();
      if (message.type === 'failed') reject(new Error(`${name}: ${message.message}`));
      else resolve(message);
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`${name} exited early (code ${code}, signal ${signal})`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/**
 * Forks a compiled bench module as its own process (its own event loop and core), with stdout
 * discarded (the servers' request logs go to /dev/null, as cheap as a log sink can be) and
 * stderr shown.
 */
function forkModule(name: string, args: string[], options: ForkOptions): ChildProcess {
  return fork(benchModule(name), args, {
    env: { ...process.env, ...options.env },
    execArgv: options.execArgv ?? [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts a long-running child (a server) and waits for its `ready` message. */
export async function startChild<TReady>(
  name: string,
  args: string[] = [],
  options: ForkOptions = {},
): Promise<BenchChild<TReady>> {
  const child = forkModule(name, args, options);
  const message = await firstMessage(child, name, options.timeoutMs ?? 30_000);
  return {
    process: child,
    ready: message as unknown as TReady,
    stop: async () => {
      if (child.connected) child.send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited(child);
      clearTimeout(timer);
    },
  };
}

/** Sends `message` to a long-running child and waits for its next `result` message. */
export async function ask<TResult>(
  child: BenchChild<unknown>,
  message: Record<string, unknown>,
  timeoutMs = 120_000,
): Promise<TResult> {
  const answer = firstMessage(child.process, 'load generator', timeoutMs);
  child.process.send(message);
  const { type: _type, ...result } = await answer;
  return result as unknown as TResult;
}

/** Runs a child that measures something itself and answers with one `result` message. */
export async function runChild<TResult>(
  name: string,
  args: string[] = [],
  options: ForkOptions = {},
): Promise<TResult> {
  const child = forkModule(name, args, options);
  const { type: _type, ...result } = await firstMessage(child, name, options.timeoutMs ?? 120_000);
  await exited(child);
  return result as unknown as TResult;
}

/** In a child: answers the parent; resolves once the message is handed to the channel. */
export function tellParent(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, () => resolve());
  });
}

/** In a child: runs `stop` when the parent asks, then exits normally. */
export function onStopRequest(stop: () => Promise<void>): void {
  process.on('message', (message: { type?: string }) => {
    if (message.type !== 'stop') return;
    stop()
      .catch(() => undefined)
      .finally(() => process.exit(0));
  });
}

/** In a child: reports a failure to the parent and exits. */
export async function failChild(error: unknown): Promise<void> {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  await tellParent({ type: 'failed', message });
  process.exit(1);
}

/** Starts a child and keeps it, to be stopped when the run `withChildren` gave it to ends. */
export type Keep = <C extends { stop(): Promise<void> }>(starting: C | Promise<C>) => Promise<C>;

/**
 * Runs `body` with `keep`, which remembers each child (a server, a load generator) it starts;
 * once `body` ends, however it ends, every one of them is stopped, the last started first.
 */
export async function withChildren<T>(body: (keep: Keep) => Promise<T>): Promise<T> {
  const started: Array<{ stop(): Promise<void> }> = [];
  const keep: Keep = async (starting) => {
    const child = await starting;
    started.push(child);
    return child;
  };
  try {
    return await body(keep);
  } finally {
    for (const child of started.reverse()) await child.stop();
  }
}
