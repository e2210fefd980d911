import { join } from 'node:path';
import { createLmdbStore } from '../../core/adapters/lmdb';
import { CLAIM_LOST_MESSAGE } from '../../core/idempotency/idempotent';
import { RedisProcess } from '../support/redis-process';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { tempDirs } from '../support/temp-dirs';
import { startChildService, type ChildService } from '../support/child-service';
import { startReputationGate, type ReputationGate } from '../support/reputation-gate';

/**
 * A worker frozen mid-create (SIGSTOP, as a frozen VM or CPU throttling does) past its claim's
 * lease: two server processes as `npm start` runs them, on one DATA_DIR and one Redis, with a reputation
 * lookup that holds the first create until the test lets it go. While the first process is
 * stopped its lease cannot be renewed and runs out; a retry through the second process claims the
 * key and creates the link. Resumed, the first process stores nothing and answers as a retry
 * would: the recorded answer. One key, one link.
 */
// A minute or so on a busy machine: two services, a pause past the lease, then a retry.
jest.setTimeout(180_000);

/** Short, so the test waits past it; renewed every 2 s, and the worker is stopped well before. */
const LEASE_SECONDS = 6;

const dirs = tempDirs('idempotency-paused');
let build: TempBuild;
let gate: ReputationGate;
let redis: RedisProcess;
let dataDir: string;
const services: ChildService[] = [];

beforeAll(async () => {
  [build, gate, redis] = await Promise.all([
    compileToTemp(),
    startReputationGate(),
    RedisProcess.start(),
  ]);
  dataDir = join(await dirs.make(), 'data');
  const env = {
    DATA_DIR: dataDir,
    // Two processes on one DATA_DIR count their rate limits in one Redis (the service insists).
    REDIS_URL: redis.url,
    IDEMPOTENCY_LEASE_SECONDS: String(LEASE_SECONDS),
    // The lookup the first create waits for: accepted however long, and the lease kept alive.
    ...gate.env,
  };
  // One after the other: the first provisions the demo into the empty store, the second finds it.
  services.push(await startChildService(build.dir, env));
  services.push(await startChildService(build.dir, env));
});

afterAll(async () => {
  for (const service of services) {
    service.child.kill('SIGCONT');
    if (service.child.exitCode === null) service.child.kill('SIGTERM');
    await service.exited;
  }
  await gate?.close();
  await redis?.stop();
  await build?.remove();
  await dirs.removeAll();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a worker stopped past its lease in the middle of a keyed create', () => {
  it('makes no second link when it resumes after a retry elsewhere created one', async () => {
    const [paused, other] = services as [ChildService, ChildService];
    const create = (service: ChildService) =>
      fetch(`http://127.0.0.1:${service.httpPort}/api/create`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${paused.token}`,
          'content-type': 'application/json',
          'idempotency-key': 'frozen-1',
        },
        body: JSON.stringify({
          organization_key: paused.organizationKey,
          url_group_id: paused.urlGroupId,
          url: 'https://example.com/frozen',
        }),
      }).then(async (answer) => ({
        status: answer.status,
        replayed: answer.headers.get('idempotent-replayed'),
        text: await answer.text(),
      }));

    gate.hold();
    const first = create(paused);
    // The first create has claimed the key and waits for its reputation lookup: stop its process
    // there, before its first lease renewal (a third of the lease after the claim).
    await gate.waitForLookups(1);
    paused.child.kill('SIGSTOP');
    await sleep((LEASE_SECONDS + 1) * 1000);
    gate.release();

    const retry = await create(other);
    expect([retry.status, retry.replayed]).toEqual([200, null]);

    paused.child.kill('SIGCONT');
    const late = await first;
    expect([late.status, late.replayed, late.text]).toEqual([200, 'true', retry.text]);
    await expect(paused.logged(CLAIM_LOST_MESSAGE)).resolves.toBeUndefined();

    for (const service of services) service.child.kill('SIGTERM');
    await Promise.all(services.map((service) => service.exited));
    const store = await createLmdbStore({ dataDir });
    try {
      expect(store.links.count()).toBe(1);
      expect(store.idempotency.count()).toBe(1);
    } finally {
      await store.close();
    }
  });
});
