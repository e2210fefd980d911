import { eventually, LONG_WAIT_MS } from '../support/eventually';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { Redis } from 'ioredis';
import { ErrorCode, hashSecret, type Seed } from '../../core';
import { createLmdbStore } from '../../core/adapters/lmdb';
import type { ShortLink as GrpcShortLink } from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { metadataText } from '../support/grpc-fixture';
import { SHARED_REDIS_URL } from '../support/redis-process';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { errorBody } from '../support/http-assertions';
import { tempDirs } from '../support/temp-dirs';
import { isRunning, startChildService, type ChildService } from '../support/child-service';
import { grpcCreate, ownConnectionClient } from '../support/grpc-client';
import { authorizationMetadata } from '../support/grpc-metadata';
import { sendRaw } from '../support/raw-http';
import { startReputationGate, type ReputationGate } from '../support/reputation-gate';
import { coversEveryWorker, logRecords, workerPids } from '../support/service-log';

/**
 * The service as `npm start` runs it with WORKERS=2: one primary and two workers on the same
 * ports, one DATA_DIR (LMDB) and the machine's shared Redis for the rate limits. An idempotency
 * key is claimed in the store, so requests with one key that node's cluster hands to both
 * workers, over both gateways, run once. Every REST request goes on its own connection and carries
 * its own X-Request-Id, which the serving worker logs with its pid: that is how the test knows which
 * worker answered. The workers accept connections themselves (SCHED_NONE), so the kernel, not the
 * test, decides which worker gets a connection, and a burst of them may all go to one: a race that
 * did not reach both workers is run again with a new key (up to MAX_RACES times), and sequential
 * requests go on until both workers have answered (up to MAX_ROUNDS rounds).
 */
jest.setTimeout(600_000);

/** Concurrent requests per race, each on a connection of its own. */
const REST_RACERS = 20;
const GRPC_RACERS = 6;
const RATE_LIMIT = 1000;
/** Races run, each with a new key, until one reaches both workers over each gateway. */
const MAX_RACES = 12;
/** Rounds of sequential requests sent until both workers have answered. */
const MAX_ROUNDS = 16;
const IN_USE = ['A request with this idempotency key is still running; retry shortly.'];
const REUSED = ['This idempotency key was already used for a different request.'];

// A token and organization key of this run only: the token's rate-limit key in the shared Redis
// (`shortlink:ratelimit:token:<sha-256>`) is then this run's alone. The shared Redis is only
// read, never flushed.
const token = `slpat_${randomBytes(20).toString('hex')}`;
const organizationKey = `slorg_${randomBytes(20).toString('hex')}`;
const DOMAIN = 'workers.test';
const GROUP = '1';
const seed: Seed = {
  organizations: [
    {
      id: 'workers',
      secret_key: organizationKey,
      domain: DOMAIN,
      scheme: 'https',
      groups: [{ api_id: GROUP }],
    },
  ],
  users: [{ id: 'workers', tokens: [token], organizations: ['workers'] }],
};

const dirs = tempDirs('idempotency-workers');
let build: TempBuild;
let gate: ReputationGate;
let service: ChildService | undefined;
let dataDir: string;

/** The live service (started in beforeAll). */
function s(): ChildService {
  if (!service) throw new Error('the service did not start');
  return service;
}

beforeAll(async () => {
  build = await compileToTemp();
  // Creates ask this stand-in Safe Browsing service about their URL; it holds them until told.
  gate = await startReputationGate();
  const dir = await dirs.make();
  dataDir = join(dir, 'data');
  const seedFile = join(dir, 'seed.json');
  await writeFile(seedFile, JSON.stringify(seed));
  service = await startChildService(build.dir, {
    WORKERS: '2',
    DATA_DIR: dataDir,
    REDIS_URL: SHARED_REDIS_URL,
    SHORTLINK_SEED_FILE: seedFile,
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    METRICS_PORT: '0',
    ...gate.env,
  });
  await service.logged('workers ready');
});

afterAll(async () => {
  gate?.release();
  if (service) {
    // Normally stopped by the last test; after a failure, nothing may outlive the run.
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
    for (const pid of workerPids(service)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    await service.exited;
  }
  await gate?.close();
  await build?.remove();
  await dirs.removeAll();
});

interface Answer {
  via: 'REST' | 'gRPC';
  /** REST: the X-Request-Id sent. */
  requestId: string;
  ok: boolean;
  /** The HTTP status, or the gRPC status code. */
  status: number;
  code: number;
  id: number | undefined;
  replayed: boolean;
  retryAfter: string | undefined;
  remaining: number;
  /** REST: the whole body as received; gRPC: the ShortLink message, as JSON. */
  text: string;
  headers?: IncomingHttpHeaders;
}

const body = (url: string, extra: Record<string, unknown> = {}) => ({
  organization_key: organizationKey,
  url_group_id: GROUP,
  url,
  ...extra,
});

let requests = 0;

async function restCreate(key: string, payload: object): Promise<Answer> {
  requests += 1;
  const requestId = `idem-workers-${requests}`;
  const answer = await sendRaw({
    port: s().httpPort,
    // sendRaw's default: no agent, a fresh connection per request.
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': key,
      'x-request-id': requestId,
    },
    body: JSON.stringify(payload),
  });
  const parsed = JSON.parse(answer.text) as { code: number; data: { id: number } | null };
  const header = (name: string) => answer.headers[name] as string | undefined;
  return {
    via: 'REST',
    requestId,
    ok: answer.status === 200,
    status: answer.status,
    code: parsed.code,
    id: parsed.data?.id,
    replayed: header('idempotent-replayed') === 'true',
    retryAfter: header('retry-after'),
    remaining: Number(header('x-ratelimit-remaining')),
    text: answer.text,
    headers: answer.headers,
  };
}

async function grpcCall(key: string, url: string, redirectType?: number): Promise<Answer> {
  requests += 1;
  const client = ownConnectionClient(s().grpcPort);
  const metadata = authorizationMetadata(`Bearer ${token}`);
  metadata.set('idempotency-key', key);
  try {
    const outcome = await grpcCreate(
      client,
      {
        organizationKey,
        urlGroupId: GROUP,
        url,
        ...(redirectType !== undefined && { redirectType }),
      },
      metadata,
      120_000,
    );
    const trailers = outcome.status.metadata;
    const link: GrpcShortLink | undefined = outcome.response?.shortLink;
    return {
      via: 'gRPC',
      requestId: '',
      ok: outcome.error === undefined,
      status: outcome.status.code,
      code: Number(metadataText(trailers, 'shortlink-error-code') ?? 0),
      id: link?.id,
      replayed: metadataText(trailers, 'idempotent-replayed') === 'true',
      retryAfter: metadataText(trailers, 'retry-after'),
      remaining: Number(metadataText(trailers, 'x-ratelimit-remaining')),
      text: JSON.stringify(link ?? null),
    };
  } finally {
    client.close();
  }
}

/** 409, code 26, Retry-After: 1 (gRPC: ABORTED with the same code and trailer). */
function expectInUse(answer: Answer): void {
  if (answer.via === 'REST') {
    expect([answer.status, answer.text]).toEqual([
      409,
      errorBody('IDEMPOTENCY_KEY_IN_USE', IN_USE),
    ]);
  } else {
    expect([answer.status, answer.code]).toEqual([
      status.ABORTED,
      ErrorCode.IDEMPOTENCY_KEY_IN_USE,
    ]);
  }
  expect(answer.retryAfter).toBe('1');
  expect(answer.replayed).toBe(false);
}

/** The pid of the worker that answered each REST request, read off its request log line. */
async function restServers(answers: Answer[]): Promise<Map<string, number>> {
  const ids = new Set(answers.filter((a) => a.via === 'REST').map((a) => a.requestId));
  const servers = new Map<string, number>();
  await eventually(
    () => {
      for (const record of logRecords(s().output())) {
        const req = record.req as { id?: string } | undefined;
        if (record.msg === 'request completed' && req?.id && ids.has(req.id)) {
          servers.set(req.id, record.pid);
        }
      }
      return servers.size === ids.size;
    },
    `the request lines of ${ids.size} requests`,
    LONG_WAIT_MS,
  );
  return servers;
}

/**
 * The pids that logged the `count` CreateShortLink calls answered with one of `codes` (gRPC
 * status codes) from log line `from` on. Each test waits for its own lines, so none is late
 * into the next.
 */
async function grpcServers(from: number, count: number, codes: number[]): Promise<number[]> {
  let pids: number[] = [];
  await eventually(
    () => {
      pids = logRecords(s().output())
        .slice(from)
        .filter(
          (record) =>
            record.msg === 'call completed' &&
            record.method === 'CreateShortLink' &&
            codes.includes(record.code as number),
        )
        .map((record) => record.pid);
      return pids.length >= count;
    },
    `${count} gRPC call lines`,
    LONG_WAIT_MS,
  );
  expect(pids).toHaveLength(count);
  return pids;
}

/** REST and gRPC senders, interleaved so both gateways race from the start. */
function race(send: { rest: () => Promise<Answer>; grpc: () => Promise<Answer> }) {
  const every = Math.ceil(REST_RACERS / GRPC_RACERS);
  const calls: Array<Promise<Answer>> = [];
  let grpcSent = 0;
  for (let i = 0; i < REST_RACERS; i += 1) {
    calls.push(send.rest());
    if (i % every === 0 && grpcSent < GRPC_RACERS) {
      calls.push(send.grpc());
      grpcSent += 1;
    }
  }
  while (grpcSent < GRPC_RACERS) {
    calls.push(send.grpc());
    grpcSent += 1;
  }
  return calls;
}

const bothWorkers = (pids: Iterable<number>) => coversEveryWorker(s(), pids);

/**
 * Runs `attempt` (1, 2, ...) until it answers true, at most `limit` times; fails naming `what`
 * when no attempt did.
 */
async function untilTrue(
  limit: number,
  what: string,
  attempt: (n: number) => Promise<boolean>,
): Promise<void> {
  for (let n = 1; n <= limit; n += 1) if (await attempt(n)) return;
  throw new Error(`${what}: not in ${limit} attempts`);
}

/** The workers that answered a race's REST requests and its gRPC calls. */
interface RaceServers {
  rest: Set<number>;
  grpc: Set<number>;
}

const servedByBoth = ({ rest, grpc }: RaceServers) => bothWorkers(rest) && bothWorkers(grpc);

/** What the race and the held race created, for the store check at the end. */
const created: Array<{ id: number; alias: string }> = [];
let racedKey = '';
let racedOriginal: Answer | undefined;

describe('one idempotency key under WORKERS=2 on LMDB and the shared Redis', () => {
  it('both workers serve, and count their rate limits in the shared Redis', async () => {
    const workers = workerPids(s());
    expect(workers).toHaveLength(2);
    expect(workers).not.toContain(s().child.pid);
    await eventually(
      () =>
        workers.every((pid) =>
          logRecords(s().output()).some(
            (r) => r.pid === pid && r.msg === 'rate limits are shared through Redis',
          ),
        ),
      'both workers to report the shared Redis',
      LONG_WAIT_MS,
    );
  });

  /**
   * One race of REST_RACERS REST and GRPC_RACERS gRPC creates with a new key: the one that claims
   * the key is held at its reputation lookup, every other one must get 409/26. Answers the pids
   * of the workers that refused over REST and of those that answered over gRPC.
   */
  async function heldRace(attempt: number): Promise<RaceServers> {
    const key = `held-${randomBytes(6).toString('hex')}`;
    // A URL of its own per race: a verdict kept from an earlier race would skip the lookup.
    const url = `https://example.com/held/${attempt}`;
    gate.hold();
    const lookupsBefore = gate.received;
    const lookups = () => gate.received - lookupsBefore;
    const logFrom = logRecords(s().output()).length;
    let settled = 0;
    const calls = race({
      rest: () => restCreate(key, body(url)),
      grpc: () => grpcCall(key, url),
    }).map((call) => call.finally(() => (settled += 1)));
    const total = calls.length;

    // Whichever request claimed the key reaches its reputation lookup and is held there; all
    // the others are answered without one (the claim comes before the anti-phishing stage).
    let answers: Answer[];
    try {
      await eventually(() => lookups() >= 1, 'the first reputation lookup', 120_000);
      // (A second lookup would mean a second request ran with the key: stop waiting then.)
      await eventually(
        () => settled >= total - 1 || lookups() > 1,
        'all but the held request to be answered',
        120_000,
      );
      expect([lookups(), settled]).toEqual([1, total - 1]);
    } finally {
      gate.release();
      answers = await Promise.all(calls);
    }
    expect(lookups()).toBe(1);

    const [first, ...others] = [...answers].sort((a, b) => Number(b.ok) - Number(a.ok));
    expect(first).toMatchObject({ ok: true, replayed: false, retryAfter: undefined });
    expect(first!.id).toBeGreaterThan(0);
    expect(others).toHaveLength(total - 1);
    for (const other of others) expectInUse(other);
    created.push({ id: first!.id!, alias: aliasOf(first!) });

    // Which workers answered: the refused REST requests by request id, every gRPC call (the
    // held one's too, so that none is logged late into the next race) by log line.
    const refusedRest = others.filter((a) => a.via === 'REST');
    expect(refusedRest.length).toBeGreaterThanOrEqual(REST_RACERS - 1);
    return {
      rest: new Set((await restServers(refusedRest)).values()),
      grpc: new Set(await grpcServers(logFrom, GRPC_RACERS, [status.OK, status.ABORTED])),
    };
  }

  it('while one request with the key is held in a worker, every other one, on both workers and both gateways, gets 409/26 with Retry-After: 1', async () => {
    // Every race checks every answer; the kernel decides whether the refusals also come from
    // the worker that does not hold the key, which is what this test is about.
    await untilTrue(MAX_RACES, 'a race answered by both workers over each gateway', async (n) =>
      servedByBoth(await heldRace(n)),
    );
  });

  /** One race with a new key (racedKey): checks every answer; answers the workers that served. */
  async function createRace(): Promise<RaceServers> {
    racedKey = `raced-${randomBytes(6).toString('hex')}`;
    const url = 'https://example.com/raced';
    const logFrom = logRecords(s().output()).length;
    const answers = await Promise.all(
      race({
        rest: () => restCreate(racedKey, body(url)),
        grpc: () => grpcCall(racedKey, url),
      }),
    );

    const successes = answers.filter((a) => a.ok);
    const originals = successes.filter((a) => !a.replayed);
    expect(originals.map((a) => `${a.via} ${a.text}`)).toHaveLength(1);
    const original = originals[0]!;
    racedOriginal = original;
    expect(original.retryAfter).toBeUndefined();
    created.push({ id: original.id!, alias: aliasOf(original) });
    for (const success of successes) expect(success.id).toBe(original.id);
    // Replays repeat the recorded answer byte for byte: every REST success has the same body,
    // every gRPC success the same message.
    for (const via of ['REST', 'gRPC'] as const) {
      const texts = new Set(successes.filter((a) => a.via === via).map((a) => a.text));
      expect(texts.size).toBeLessThanOrEqual(1);
    }
    for (const refused of answers.filter((a) => !a.ok)) expectInUse(refused);
    // One budget for both workers, in Redis: every request took its own unit of it.
    expect(new Set(answers.map((a) => a.remaining)).size).toBe(answers.length);

    // How the race went, for the record when it is read in a log.
    const tally = (a: Answer) => `${a.via} ${a.ok ? (a.replayed ? 'replay' : 'created') : a.code}`;
    const counts = new Map<string, number>();
    for (const answer of answers) counts.set(tally(answer), (counts.get(tally(answer)) ?? 0) + 1);
    process.stdout.write(`race outcome: ${JSON.stringify(Object.fromEntries(counts))}\n`);

    return {
      rest: new Set((await restServers(answers)).values()),
      grpc: new Set(await grpcServers(logFrom, GRPC_RACERS, [status.OK, status.ABORTED])),
    };
  }

  it(`${REST_RACERS} REST and ${GRPC_RACERS} gRPC creates racing with one key create one link; the others get its replay, byte for byte, or 409/26`, async () => {
    await untilTrue(MAX_RACES, 'a race answered by both workers over each gateway', async () =>
      servedByBoth(await createRace()),
    );
  });

  it('after the race, the next requests with the key on either worker and gateway get the replay', async () => {
    const url = 'https://example.com/raced';
    const original = racedOriginal;
    if (!original) throw new Error('the race did not run');
    const logFrom = logRecords(s().output()).length;
    // One after the other on fresh connections, until each gateway has been answered by both
    // workers (the kernel picks the worker of each connection).
    const rest: Answer[] = [];
    const grpc: Answer[] = [];
    await untilTrue(MAX_ROUNDS, 'replays from both workers on both gateways', async () => {
      rest.push(await restCreate(racedKey, body(url)));
      grpc.push(await grpcCall(racedKey, url));
      // At least 4 rounds (4 replays over each gateway), whatever the split.
      if (rest.length < 4) return false;
      return (
        bothWorkers((await restServers(rest)).values()) &&
        bothWorkers(await grpcServers(logFrom, grpc.length, [status.OK]))
      );
    });
    for (const answer of [...rest, ...grpc]) {
      expect([answer.ok, answer.replayed, answer.id]).toEqual([true, true, original.id]);
    }
    const restTexts = new Set(rest.map((answer) => answer.text));
    expect(restTexts.size).toBe(1);
    if (original.via === 'REST') expect([...restTexts]).toEqual([original.text]);
    else expect(new Set(grpc.map((a) => a.text))).toEqual(new Set([original.text]));
    for (const answer of rest) {
      expect(answer.headers?.['idempotent-replayed']).toBe('true');
      expect(answer.headers?.['retry-after']).toBeUndefined();
    }

    // The rate-limit figures are current, not replayed: they count in the token's Redis key.
    const inspector = new Redis(SHARED_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await inspector.connect();
      const last = await restCreate(racedKey, body(url));
      const used = await inspector.get(`shortlink:ratelimit:token:${hashSecret(token)}`);
      expect(Number(used)).toBe(RATE_LIMIT - last.remaining);
    } finally {
      inspector.disconnect();
    }
  });

  it('the same key with another body gets 422, code 25 from both workers and both gateways', async () => {
    const logFrom = logRecords(s().output()).length;
    const changes = [
      body('https://example.com/another'),
      body('https://example.com/raced', { redirect_type: 307 }),
    ];
    const answers: Answer[] = [];
    await untilTrue(MAX_ROUNDS, '25 from both workers on both gateways', async () => {
      answers.push(
        ...(await Promise.all([
          ...Array.from({ length: 6 }, (_, i) =>
            restCreate(racedKey, changes[i % changes.length]!),
          ),
          grpcCall(racedKey, 'https://example.com/another'),
          grpcCall(racedKey, 'https://example.com/raced', 307),
        ])),
      );
      const grpcCount = answers.filter((a) => a.via === 'gRPC').length;
      return (
        bothWorkers((await restServers(answers)).values()) &&
        bothWorkers(await grpcServers(logFrom, grpcCount, [status.INVALID_ARGUMENT]))
      );
    });
    for (const answer of answers) {
      if (answer.via === 'REST') {
        expect([answer.status, answer.text]).toEqual([
          422,
          errorBody('IDEMPOTENCY_KEY_REUSED', REUSED),
        ]);
      } else {
        expect([answer.status, answer.code]).toEqual([
          status.INVALID_ARGUMENT,
          ErrorCode.IDEMPOTENCY_KEY_REUSED,
        ]);
      }
      expect(answer.replayed).toBe(false);
    }
  });

  it('stopped, the data directory holds exactly the links answered and their records', async () => {
    // One link per race run (a race is run again when it reached one worker), each with its key.
    expect(created.length).toBeGreaterThanOrEqual(2);
    s().child.kill('SIGTERM');
    expect(await s().exited).toBe(0);
    const store = await createLmdbStore({ dataDir });
    try {
      expect(store.links.count()).toBe(created.length);
      expect(store.idempotency.count()).toBe(created.length);
      for (const { id, alias } of created) {
        expect((await store.links.findByAlias(DOMAIN, alias))?.id).toBe(id);
      }
    } finally {
      await store.close();
    }
  });
});

/** The alias of a created link, from either gateway's answer. */
function aliasOf(answer: Answer): string {
  const parsed = JSON.parse(answer.text) as { data?: { alias: string }; alias?: string };
  const alias = answer.via === 'REST' ? parsed.data?.alias : parsed.alias;
  if (!alias) throw new Error(`no alias in ${answer.text}`);
  return alias;
}
