import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './compile-to-temp';
import { NO_DEMO_MESSAGE, SEED_FILE_APPLIED_MESSAGE } from '../../core/runtime/create-runtime';

export interface ChildService {
  child: ChildProcess;
  httpPort: number;
  grpcPort: number;
  /** The demo's credentials, from its banner ('' when a seed file provisioned the store). */
  token: string;
  organizationKey: string;
  urlGroupId: string;
  /** Resolves when stdout has shown a log line with this message. */
  logged(message: string): Promise<void>;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
  output(): string;
}

/** `node <dir>/gateway-http/main.js` on free ports without metrics, `env` over that; output piped. */
function spawnEntryPoint(dir: string, env: Record<string, string>) {
  return spawn(process.execPath, [join(dir, 'gateway-http', 'main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_PATH: join(ROOT, 'node_modules'),
      PORT: '0',
      GRPC_PORT: '0',
      METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Starts `node <dir>/gateway-http/main.js` and reads its ports and demo secrets off stdout. */
export function startChildService(dir: string, env: Record<string, string>): Promise<ChildService> {
  // The in-memory store unless the test names a data directory.
  const child = spawnEntryPoint(dir, { LOG_LEVEL: 'info', DATA_DIR: ':memory:', ...env });
  let output = '';
  const messages = new Set<string>();
  const listeners: Array<() => void> = [];
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    for (const line of output.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const { msg } = JSON.parse(line) as { msg?: string };
        if (msg) messages.add(msg);
      } catch {
        // an incomplete line; read again with the next chunk
      }
    }
    for (const listener of listeners.splice(0)) listener();
  });
  const logged = (message: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (messages.has(message)) resolve();
        else if (child.exitCode !== null)
          reject(new Error(`exited before "${message}": ${output}`));
        else listeners.push(check);
      };
      check();
    });
  const field = (pattern: RegExp) => pattern.exec(output)?.[1] ?? '';

  return new Promise((resolve, reject) => {
    const onExit = () => reject(new Error(`the service exited during start-up:\n${output}`));
    child.once('exit', onExit);
    const ready = () => {
      // pino's lines and the banner may arrive in either order: wait for all three. A restart on
      // a data directory that already holds the demo prints no banner but says so in the log; so
      // does a start with a seed file (its credentials are the test's own, not read here).
      const ports = [
        ...output.matchAll(/"port":(\d+)[^\n]*"msg":"(REST|gRPC) gateway listening"/g),
      ];
      const portOf = (kind: string) => Number(ports.find((match) => match[2] === kind)?.[1]);
      const demoSettled =
        /link domain:\s+\S+/.test(output) ||
        messages.has(NO_DEMO_MESSAGE) ||
        messages.has(SEED_FILE_APPLIED_MESSAGE);
      if (!demoSettled || !portOf('REST') || !portOf('gRPC')) {
        listeners.push(ready);
        return;
      }
      child.off('exit', onExit);
      resolve({
        child,
        httpPort: portOf('REST'),
        grpcPort: portOf('gRPC'),
        token: field(/personal access token:\s+(\S+)/),
        organizationKey: field(/organization secret key:\s+(\S+)/),
        urlGroupId: field(/url group id:\s+(\S+)/),
        logged,
        exited,
        output: () => output,
      });
    };
    listeners.push(ready);
  });
}

/** True while a process with this pid exists (a WORKERS primary's worker, say). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs the built entry point (`<dir>/gateway-http/main.js`) with `env` until it exits by itself:
 * its exit code and everything it printed. Killed after 30 s so a start-up that hangs fails fast.
 */
export function runServiceUntilExit(
  dir: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawnEntryPoint(dir, env);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, output });
    }),
  );
}
