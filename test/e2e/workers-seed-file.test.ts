import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunning, startChildService, type ChildService } from '../support/child-service';
import { logRecords, workerPids } from '../support/service-log';
import { adminSucceeds } from '../support/admin-cli';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';

jest.setTimeout(180_000);

let build: TempBuild;
let dir: string;
let service: ChildService | undefined;

beforeAll(async () => {
  build = await compileToTemp();
  dir = await mkdtemp(join(tmpdir(), 'shortlink-workers-seed-'));
});
afterAll(async () => {
  if (service) {
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
    for (const pid of workerPids(service)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  }
  await build.remove();
  await rm(dir, { recursive: true, force: true });
});

/** The built admin CLI on the service's DATA_DIR, as an operator runs it beside the service. */
const admin = (dataDir: string, ...args: string[]) =>
  adminSucceeds(build.dir, { DATA_DIR: dataDir }, ...args);

describe('WORKERS=2 with a seed file', () => {
  it("applies the seed file once: a crashed worker's replacement does not undo an admin change", async () => {
    const dataDir = join(dir, 'data');
    const seedFile = join(dir, 'seed.json');
    await writeFile(
      seedFile,
      JSON.stringify({
        organizations: [
          {
            id: 'acme',
            secret_key: 'slorg_choose-a-long-random-key',
            domain: 'acme.link',
            active: true,
            groups: [{ api_id: '1' }],
          },
        ],
        users: [
          {
            id: 'alice',
            tokens: ['slpat_choose-a-long-random-token'],
            organizations: ['acme'],
          },
        ],
      }),
    );
    service = await startChildService(build.dir, {
      WORKERS: '2',
      DATA_DIR: dataDir,
      SHORTLINK_SEED_FILE: seedFile,
    });
    await service.logged('workers ready');

    // The operator deactivates the organization while the service runs...
    await admin(dataDir, 'org', 'deactivate', '--id', 'acme');
    // ...and a worker crashes and is replaced.
    const [victim] = workerPids(service) as [number, number];
    process.kill(victim, 'SIGKILL');
    await service.logged('worker restarted');

    const [acme] = (await admin(dataDir, 'org', 'list'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; active: boolean });
    expect(acme).toMatchObject({ id: 'acme', active: false });
    const appliedBy = logRecords(service.output())
      .filter((record) => record.msg === 'seed file applied')
      .map((record) => record.pid);
    expect(appliedBy).toHaveLength(1);
  });
});
