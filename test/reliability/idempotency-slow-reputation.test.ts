import { join } from 'node:path';
import { ErrorCode, type ResponseInfo, type ShortLink } from '../../core';
import { createRuntime, loadConfig, type Runtime } from '../../core/runtime';
import { tempDirs } from '../support/temp-dirs';
import { within } from '../support/within';
import { startReputationGate, type ReputationGate } from '../support/reputation-gate';

/**
 * A keyed create held far past its lease by a slow reputation lookup: the runtime as `npm start`
 * builds it from the environment (the Safe Browsing lookup, SAFE_BROWSING_TIMEOUT_MS of two
 * minutes, accepted), on the memory store and on LMDB. The lease is renewed while the request
 * runs, so its retries answer 26 all along, and one link is made.
 */
jest.setTimeout(30_000);

const LEASE_SECONDS = 1;
const dirs = tempDirs('idempotency-slow-reputation');
let gate: ReputationGate;
let runtime: Runtime | undefined;

beforeAll(async () => {
  gate = await startReputationGate();
});
afterEach(async () => {
  gate.release();
  await runtime?.close();
  runtime = undefined;
});
afterAll(async () => {
  await gate.close();
  await dirs.removeAll();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([
  ['memory', () => Promise.resolve(':memory:')],
  ['LMDB', async () => join(await dirs.make(), 'data')],
])('a keyed create waiting on a slow reputation lookup (%s)', (_name, dataDir) => {
  it('keeps its key (26 to every retry) for 4 leases, then creates the one link', async () => {
    runtime = await createRuntime(
      loadConfig({
        DATA_DIR: await dataDir(),
        METRICS_PORT: '0',
        IDEMPOTENCY_LEASE_SECONDS: String(LEASE_SECONDS),
        ...gate.env,
      }),
    );
    expect(runtime.core.deps.idempotencyLeaseSeconds).toBe(LEASE_SECONDS);
    const demo = await runtime.provisionDemo(8080);
    const { core } = runtime;
    const create = () => {
      const response: ResponseInfo = {};
      return core
        .createCaller({ authorization: `Bearer ${demo.token}`, idempotencyKey: 'slow', response })
        .links.create({
          organization_key: demo.organizationKey,
          url_group_id: '1',
          url: 'https://example.com/slowly-checked',
        })
        .then(
          (link: ShortLink) => ({ code: 0, link, response }),
          (error: { code?: number }) => ({ code: error.code, link: undefined, response }),
        );
    };
    gate.hold();
    const received = gate.received;
    const slow = create();
    await gate.waitForLookups(received + 1);
    for (let i = 0; i < 4; i += 1) {
      await sleep(LEASE_SECONDS * 1000);
      // A retry that got the key would wait at the held lookup instead of answering.
      const retry = await within(create(), 5_000);
      expect(retry).toMatchObject({
        code: ErrorCode.IDEMPOTENCY_KEY_IN_USE,
        response: { retryAfterSeconds: 1 },
      });
    }
    gate.release();
    const done = await slow;
    expect([done.code, done.response.idempotentReplayed]).toEqual([0, undefined]);
    const replay = await create();
    expect([replay.link, replay.response.idempotentReplayed]).toEqual([done.link, true]);
    // The lookups: the held create's alone (the retries never reached the lookup).
    expect(gate.received).toBe(received + 1);
    await expect(
      core.createCaller({}).links.resolve({ domain: 'localhost:8080', alias: done.link!.alias }),
    ).resolves.toMatchObject({ id: done.link!.id });
    expect(done.link!.id).toBe(1);
  });
});
