import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface EntryPoint {
  readonly process: ChildProcess;
  readonly ready: { httpPort: number; grpcPort: number };
  /** SIGTERM, as an operator stops it, and waits for the exit. */
  stop(): Promise<void>;
}

/** The compiled `gateway-http/main.js` of this bench build: what `npm start` runs. */
const ENTRY = join(__dirname, '..', '..', '..', 'gateway-http', 'main.js');

interface LogLine {
  msg?: string;
  port?: number;
  ports?: { http?: number; grpc?: number };
}

/** The ports once the service is ready, read from its log: null while it is starting. */
function readyPorts(log: string, workers: number): EntryPoint['ready'] | null {
  const lines = log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      try {
        return JSON.parse(line) as LogLine;
      } catch {
        return {};
      }
    });
  if (workers > 1) {
    const ready = lines.find((line) => line.msg === 'workers ready');
    const { http, grpc } = ready?.ports ?? {};
    return http && grpc ? { httpPort: http, grpcPort: grpc } : null;
  }
  const port = (msg: string) => lines.find((line) => line.msg === msg)?.port;
  const httpPort = port('REST gateway listening');
  const grpcPort = port('gRPC gateway listening');
  return httpPort && grpcPort ? { httpPort, grpcPort } : null;
}

/**
 * Starts the service as `npm start` does (`node gateway-http/main.js`, primary and workers with
 * WORKERS > 1), its log written to `logFile` (a file costs the servers what /dev/null does, and
 * the log tells when it is ready and on which ports).
 */
export async function startEntryPoint(
  env: Record<string, string>,
  logFile: string,
  timeoutMs = 60_000,
): Promise<EntryPoint> {
  const workers = Number(env.WORKERS ?? '1');
  const out = openSync(logFile, 'w');
  const child = spawn(process.execPath, [ENTRY], {
    env: { ...process.env, PORT: '0', GRPC_PORT: '0', ...env },
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ready = readyPorts(readFileSync(logFile, 'utf8'), workers);
    if (ready) {
      return {
        process: child,
        ready,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `the service (WORKERS=${workers}) did not start: ${readFileSync(logFile, 'utf8')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
