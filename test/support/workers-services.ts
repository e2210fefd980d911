import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileToTemp, type TempBuild } from './compile-to-temp';
import { isRunning, startChildService, type ChildService } from './child-service';
import { workerPids } from './service-log';

/**
 * A test file's WORKERS services: the entry point compiled once (beforeAll), data directories
 * named `<prefix>…`, and every service started through it killed with its workers and its
 * directories removed (afterAll).
 */
export function workersServices(prefix: string) {
  let build: TempBuild | undefined;
  const dataDirs: string[] = [];
  const started: ChildService[] = [];
  beforeAll(async () => {
    build = await compileToTemp();
  });
  afterAll(async () => {
    for (const service of started) {
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
      for (const pid of workerPids(service)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
    await build?.remove();
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
  });
  const buildDir = () => {
    if (!build) throw new Error('the build is made in beforeAll');
    return build.dir;
  };
  /** An empty data directory, removed after the file's tests. */
  const dataDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    dataDirs.push(dir);
    return dir;
  };
  return {
    buildDir,
    dataDir,
    /** A WORKERS=2 service on a data directory of its own, once it logged `workers ready`. */
    async start(env: Record<string, string> = {}): Promise<ChildService> {
      const service = await startChildService(buildDir(), {
        WORKERS: '2',
        DATA_DIR: await dataDir(),
        ...env,
      });
      started.push(service);
      await service.logged('workers ready');
      return service;
    },
  };
}
