import { randomUUID } from 'node:crypto';
import { freePort } from '../../support/free-port';
import { IN_MEMORY_DATA_DIR } from '../../../core/runtime';
import { startChild, withChildren, type BenchChild } from '../support/child';
import { BENCH_DOMAIN, CREATE_BODY, CREATE_HEADERS } from '../support/credentials';
import { BENCH_RATE_LIMIT_PER_MINUTE } from '../support/bench-runtime';
import { alternate, type Round, type Summary } from '../support/measurement';
import type { BenchSettings } from '../support/settings';
import { httpRound, type HttpLoad } from '../load/http-load';

export interface ServerReady {
  httpPort: number;
  grpcPort: number | null;
}

/**
 * subject and subjectWarn run on the default store (LMDB, each in a DATA_DIR of its own);
 * subjectMemory on DATA_DIR=:memory:, the reference for what the durable store costs;
 * subjectNoCaches on LMDB with both in-process caches off.
 */
type HttpTarget =
  'baseline' | 'baselinePrebuilt' | 'subject' | 'subjectWarn' | 'subjectMemory' | 'subjectNoCaches';
/** The subject also creates with a fresh Idempotency-Key per request, and replays one key. */
type CreateTarget = HttpTarget | 'subjectRebuilt' | 'subjectFreshKey' | 'subjectReplay';

export interface HttpResults {
  create: Record<CreateTarget, Summary>;
  follow: Record<HttpTarget, Summary>;
  sampleAnswerBytes: { subject: number; baseline: number };
}

export const FOLLOWED_LINKS = 100;

/** The subject with both in-process caches turned off, for the caches-on/off rows. */
const CACHES_OFF = { LINK_CACHE_SIZE: '0', IDENTITY_CACHE_TTL_SECONDS: '0' };

interface CreatedLink {
  id: number;
  alias: string;
  url: string;
  [field: string]: unknown;
}

async function createOnce(
  port: number,
  headers: Record<string, string> = CREATE_HEADERS,
  /** Fields beyond the bench's create body (a `max_visits`, say). */
  extra: Record<string, unknown> = {},
): Promise<{ link: CreatedLink; bytes: number }> {
  const answer = await fetch(`http://127.0.0.1:${port}/api/create`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ ...CREATE_BODY, ...extra }),
  });
  const text = await answer.text();
  if (answer.status !== 200) throw new Error(`create answered ${answer.status}: ${text}`);
  return { link: (JSON.parse(text) as { data: CreatedLink }).data, bytes: text.length };
}

/**
 * Starts the service as `npm start` composes it, with only the rate limit raised and metrics
 * on a free port (or off, with `metrics: false`).
 */
export async function startSubject(
  seedFile: string,
  settings: BenchSettings,
  logLevel: string,
  /** DATA_DIR: a directory (LMDB) or `:memory:`. */
  dataDir: string,
  /** Extra configuration (the caches-off subject turns both caches off; METRICS_PORT=0). */
  env: Record<string, string> = {},
  /** The server module: this build's, or another build's (an absolute path). */
  module = 'servers/shortlink-server',
): Promise<BenchChild<ServerReady>> {
  const profile = settings.cpuProfileDir
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${settings.cpuProfileDir}`,
        `--cpu-prof-name=subject-${logLevel}-${Date.now()}.cpuprofile`,
      ]
    : [];
  return await startChild<ServerReady>(module, [], {
    env: {
      PORT: '0',
      GRPC_PORT: '0',
      HOST: '127.0.0.1',
      SHORTLINK_SEED_FILE: seedFile,
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_MINUTE: String(BENCH_RATE_LIMIT_PER_MINUTE),
      LOG_LEVEL: logLevel,
      METRICS_PORT: String(await freePort()),
      ...env,
    },
    execArgv: profile,
  });
}

/**
 * The bare express baseline, answering every create with `sample` (the subject's own answer);
 * with prebuilt prototypes, for information, the same answer built ahead of the requests.
 */
function startBaseline(
  sample: CreatedLink,
  prebuiltPrototypes: boolean,
): Promise<BenchChild<ServerReady>> {
  return startChild<ServerReady>('servers/bare-express', [], {
    env: {
      BENCH_SAMPLE_LINK: JSON.stringify(sample),
      BENCH_PREBUILT_PROTOTYPES: prebuiltPrototypes ? '1' : '0',
    },
  });
}

export const createLoad: HttpLoad = {
  method: 'POST',
  headers: CREATE_HEADERS,
  requests: [{ path: '/api/create', body: JSON.stringify(CREATE_BODY) }],
  expectedClass: 2,
};

/** Every request under a new key: the idempotency stage claims and records each one. */
const freshKeyLoad: HttpLoad = {
  ...createLoad,
  headers: { ...CREATE_HEADERS, 'idempotency-key': '[<id>]' },
  idReplacement: true,
};

/** The same client work as freshKeyLoad (a request rebuilt with a new id), without a key. */
const rebuiltLoad: HttpLoad = {
  ...createLoad,
  headers: { ...CREATE_HEADERS, 'x-bench-request': '[<id>]' },
  idReplacement: true,
};

/** Every request under one key whose create is done: each answer is the recorded one. */
function replayLoad(key: string): HttpLoad {
  return { ...createLoad, headers: { ...CREATE_HEADERS, 'idempotency-key': key } };
}

export function followLoad(aliases: readonly string[]): HttpLoad {
  return {
    method: 'GET',
    headers: { host: BENCH_DOMAIN },
    requests: aliases.map((alias) => ({ path: `/${alias}` })),
    expectedClass: 3,
  };
}

const reportOf = (log: (line: string) => void, scenario: string) =>
  function report(name: string, index: number, round: Round): void {
    log(
      `${scenario} round ${index + 1} ${name}: ${round.requestsPerSecond.toFixed(0)} req/s, p50 ${round.p50Ms} ms, p99 ${round.p99Ms} ms, server CPU ${round.serverCpuMsPerRequest?.toFixed(3)} ms/req, unexpected ${round.unexpectedStatus}, errors ${round.errors}`,
    );
  };

const on = (server: BenchChild<ServerReady>, load: HttpLoad) => (seconds: number) =>
  httpRound({ port: server.ready.httpPort, pid: server.process.pid }, load, seconds);

/** The idempotency rows' targets on one subject: a key replayed, fresh keys, no key (rebuilt). */
async function keyedTargets(subject: BenchChild<ServerReady>) {
  const replayKey = `bench-replay-${randomUUID()}`;
  await createOnce(subject.ready.httpPort, replayLoad(replayKey).headers);
  return [
    { name: 'subjectRebuilt', run: on(subject, rebuiltLoad) },
    { name: 'subjectFreshKey', run: on(subject, freshKeyLoad) },
    { name: 'subjectReplay', run: on(subject, replayLoad(replayKey)) },
  ] as const;
}

export type IdempotencyTarget = 'subject' | 'subjectRebuilt' | 'subjectFreshKey' | 'subjectReplay';

/**
 * BENCH_ONLY=idempotency: only what the idempotency rows need, on one subject (LMDB), in
 * alternating rounds as in the full run.
 */
export async function runIdempotencyScenario(
  seedFile: string,
  settings: BenchSettings,
  log: (line: string) => void,
  dataDir: string,
): Promise<Record<IdempotencyTarget, Summary>> {
  const subject = await startSubject(seedFile, settings, 'info', dataDir);
  try {
    return await alternate(
      [{ name: 'subject', run: on(subject, createLoad) }, ...(await keyedTargets(subject))],
      settings,
      reportOf(log, 'idempotency'),
    );
  } finally {
    await subject.stop();
  }
}

export type CreateOnlyTarget = 'baseline' | 'baselinePrebuilt' | 'subject' | 'subjectMemory';

/**
 * BENCH_ONLY=create: REST create on the default store (LMDB) at the default log level against
 * the bare express baseline (plain, and with prebuilt prototypes for the floor row) and
 * DATA_DIR=:memory:, in alternating rounds as in the full run.
 */
export async function runCreateScenario(
  seedFile: string,
  settings: BenchSettings,
  log: (line: string) => void,
  dataDir: string,
): Promise<Record<CreateOnlyTarget, Summary>> {
  return withChildren(async (keep) => {
    const subject = await keep(startSubject(seedFile, settings, 'info', dataDir));
    const subjectMemory = await keep(startSubject(seedFile, settings, 'info', IN_MEMORY_DATA_DIR));
    const sample = await createOnce(subject.ready.httpPort);
    const baseline = await keep(startBaseline(sample.link, false));
    const baselinePrebuilt = await keep(startBaseline(sample.link, true));
    return await alternate(
      [
        { name: 'baseline', run: on(baseline, createLoad) },
        { name: 'baselinePrebuilt', run: on(baselinePrebuilt, createLoad) },
        { name: 'subject', run: on(subject, createLoad) },
        { name: 'subjectMemory', run: on(subjectMemory, createLoad) },
      ],
      settings,
      reportOf(log, 'create'),
    );
  });
}

export async function createLinks(
  port: number,
  count: number,
  extra: Record<string, unknown> = {},
): Promise<string[]> {
  const aliases: string[] = [];
  for (let i = 0; i < count; i += 1)
    aliases.push((await createOnce(port, CREATE_HEADERS, extra)).link.alias);
  return aliases;
}

/**
 * REST create and link following: the service at the default log level, the service at
 * LOG_LEVEL=warn, the bare express baseline, and (for information) the bare express baseline
 * with prebuilt prototypes, in alternating rounds.
 */
export async function runHttpScenarios(
  seedFile: string,
  settings: BenchSettings,
  log: (line: string) => void,
  /** Makes an empty data directory for one subject. */
  newDataDir: () => string,
): Promise<HttpResults> {
  return withChildren(async (keep) => {
    const subject = await keep(startSubject(seedFile, settings, 'info', newDataDir()));
    const subjectWarn = await keep(startSubject(seedFile, settings, 'warn', newDataDir()));
    const subjectMemory = await keep(startSubject(seedFile, settings, 'info', IN_MEMORY_DATA_DIR));
    const subjectNoCaches = await keep(
      startSubject(seedFile, settings, 'info', newDataDir(), CACHES_OFF),
    );
    const sample = await createOnce(subject.ready.httpPort);
    const baseline = await keep(startBaseline(sample.link, false));
    const baselinePrebuilt = await keep(startBaseline(sample.link, true));
    const baselineBytes = (await createOnce(baseline.ready.httpPort)).bytes;

    const create = await alternate(
      [
        { name: 'baseline', run: on(baseline, createLoad) },
        { name: 'baselinePrebuilt', run: on(baselinePrebuilt, createLoad) },
        { name: 'subject', run: on(subject, createLoad) },
        { name: 'subjectWarn', run: on(subjectWarn, createLoad) },
        { name: 'subjectMemory', run: on(subjectMemory, createLoad) },
        ...(await keyedTargets(subject)),
        { name: 'subjectNoCaches', run: on(subjectNoCaches, createLoad) },
      ],
      settings,
      reportOf(log, 'create'),
    );

    const subjectAliases = await createLinks(subject.ready.httpPort, FOLLOWED_LINKS);
    const warnAliases = await createLinks(subjectWarn.ready.httpPort, FOLLOWED_LINKS);
    const memoryAliases = await createLinks(subjectMemory.ready.httpPort, FOLLOWED_LINKS);
    const noCacheAliases = await createLinks(subjectNoCaches.ready.httpPort, FOLLOWED_LINKS);
    const follow = await alternate(
      [
        { name: 'baseline', run: on(baseline, followLoad(subjectAliases)) },
        { name: 'baselinePrebuilt', run: on(baselinePrebuilt, followLoad(subjectAliases)) },
        { name: 'subject', run: on(subject, followLoad(subjectAliases)) },
        { name: 'subjectWarn', run: on(subjectWarn, followLoad(warnAliases)) },
        { name: 'subjectMemory', run: on(subjectMemory, followLoad(memoryAliases)) },
        { name: 'subjectNoCaches', run: on(subjectNoCaches, followLoad(noCacheAliases)) },
      ],
      settings,
      reportOf(log, 'follow'),
    );
    return {
      create,
      follow,
      sampleAnswerBytes: { subject: sample.bytes, baseline: baselineBytes },
    };
  });
}
