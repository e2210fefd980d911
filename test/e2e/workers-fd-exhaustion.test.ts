import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunning, startChildService, type ChildService } from '../support/child-service';
import { workerPids } from '../support/service-log';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';

jest.setTimeout(120_000);

/** GET /healthz with its own connection and a 2 s timeout: the status, or the error's text. */
function healthz(port: number): Promise<number | string> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    request.setTimeout(2000, () => request.destroy(new Error('timeout')));
    request.on('error', (error) => resolve(error.message));
  });
}

function hasPrlimit(): boolean {
  try {
    execFileSync('prlimit', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

let build: TempBuild;
let service: ChildService | undefined;
let dataDir: string;

beforeAll(async () => {
  build = await compileToTemp();
  dataDir = await mkdtemp(join(tmpdir(), 'shortlink-fd-'));
});
afterAll(async () => {
  if (service) {
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
    for (const pid of workerPids(service)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  }
  await build.remove();
  await rm(dataDir, { recursive: true, force: true });
});

(hasPrlimit() ? it : it.skip)(
  "WORKERS=2: a burst of connections past the workers' open-file limit does not stop the port for good",
  async () => {
    service = await startChildService(build.dir, { WORKERS: '2', DATA_DIR: dataDir });
    await service.logged('workers ready');
    const port = service.httpPort;
    expect(await healthz(port)).toBe(200);
    // Each worker may hold 200 files; 500 connections at once are more than both can take.
    for (const pid of workerPids(service))
      execFileSync('prlimit', ['--pid', String(pid), '--nofile=200:200']);
    const sockets: Socket[] = [];
    await Promise.all(
      Array.from(
        { length: 500 },
        () =>
          new Promise<void>((resolve) => {
            const socket = connect(port, '127.0.0.1');
            sockets.push(socket);
            socket.on('connect', () => resolve());
            socket.on('error', () => resolve());
            setTimeout(resolve, 3000);
          }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // The burst is over: every file is free again, and the port must serve again.
    const answers: Array<number | string> = [];
    for (let i = 0; i < 4; i++) answers.push(await healthz(port));
    expect(answers).toEqual([200, 200, 200, 200]);
  },
);
