import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { IN_MEMORY_DATA_DIR } from '../../core/runtime';
import type { GrowthResult } from './in-process/growth';
import type { KeyedWritesResult } from './in-process/keyed-writes';
import type { SharedWritesResult } from './in-process/shared-writes';
import { runChild } from './support/child';
import { CONCURRENCY } from './support/concurrency';
import { writeBenchSeed } from './support/credentials';
import { formatTable, row, type Row } from './support/report';
import { loadSettings, type BenchSettings } from './support/settings';
import {
  runCreateScenario,
  runHttpScenarios,
  runIdempotencyScenario,
  type HttpResults,
  type IdempotencyTarget,
} from './scenarios/http-scenarios';
import { runGrpcScenario, type GrpcResults } from './scenarios/grpc-scenario';
import { runWorkersScenario, type WorkersResults } from './scenarios/workers-scenario';
import {
  BUILD_BEFORE_GOVERNANCE,
  runFollowGovernanceScenario,
  type FollowGovernanceResults,
} from './scenarios/follow-governance-scenario';
import {
  METRICS_PAIRS,
  runMetricsScenario,
  type MetricsResults,
} from './scenarios/metrics-scenario';
import { countRoundTrips, type RoundTrips } from './in-process/round-trips';
import type { Rate } from './support/in-flight';
import type { Summary } from './support/measurement';

interface CoreCeiling {
  callsPerSecond: number;
  rounds: number[];
}

interface MemoryResult {
  sample: number;
  rssBytes: number;
  heapBytes: number;
}

const MB = 1024 * 1024;

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

function machine() {
  const cpu = cpus();
  return {
    cores: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

type Target = Parameters<typeof row>[3];
type Measure = 'requestsPerSecond' | 'p50Ms' | 'p99Ms' | 'serverCpuMsPerRequest';
const UNITS: Record<Measure, string> = {
  requestsPerSecond: 'req/s',
  p50Ms: 'p50 ms',
  p99Ms: 'p99 ms',
  serverCpuMsPerRequest: 'server CPU ms/req',
};
/** What a row compares, when not the path against its bare baseline: the end of its label. */
const VERSUS = {
  warn: ', LOG_LEVEL=warn',
  prebuilt: ' vs bare express with prebuilt prototypes',
  memory: ', LMDB vs DATA_DIR=:memory:',
  noCaches: ', caches on vs off (embedded store)',
  noMetrics: ` with metrics vs METRICS_PORT=0 (both DATA_DIR=:memory:, median of ${METRICS_PAIRS} pairs)`,
  noKey: ', a fresh Idempotency-Key per request, vs without a key',
  create: ' vs REST create',
  before: `, this build vs the build of ${process.env.BENCH_FOLLOW_BEFORE?.trim() || `${BUILD_BEFORE_GOVERNANCE} (before link governance)`}, LMDB`,
  redirect: ', a disabled link (410) vs an active one (redirect), LMDB',
  capped: ', a link with max_visits (counted atomically) vs one without, LMDB',
  allProcesses: ', all processes',
};
/**
 * The most MongoDB round trips a warm create (the rate-limit window and the insert) and a warm
 * follow may take with the caches on.
 */
const WARM_ROUND_TRIPS_MAX = { create: 2, follow: 0 };

/** Rows of one path, each one measure of two of its targets, labelled `<path> <unit><versus>`. */
function rowsOf(path: string) {
  return (measure: Measure, subject: Summary, baseline: Summary, versus = '', target?: Target) =>
    row(`${path} ${UNITS[measure]}${versus}`, subject[measure], baseline[measure], target);
}

/** A path against its bare baseline: throughput (with its target), latencies, CPU per request. */
function againstBaseline(path: string, subject: Summary, baseline: Summary, minRatio: number) {
  const compare = rowsOf(path);
  return [
    compare('requestsPerSecond', subject, baseline, '', { minRatio }),
    compare('p50Ms', subject, baseline),
    compare('p99Ms', subject, baseline),
    compare('serverCpuMsPerRequest', subject, baseline),
  ];
}

/** The REST create targets on the durable default: the bare express baseline, and the LMDB cost. */
const REST_CREATE_MIN_RATIO = { baseline: 0.75, lmdb: 0.8 };

/** The comparisons REST create and follow link both have; `minRatio`: against the baseline, LMDB. */
function httpPathRows(
  path: string,
  targets: HttpResults['follow'],
  minRatio: { baseline: number; lmdb: number },
): Row[] {
  const t = targets;
  const compare = rowsOf(path);
  return [
    ...againstBaseline(path, t.subject, t.baseline, minRatio.baseline),
    compare('requestsPerSecond', t.subjectWarn, t.baseline, VERSUS.warn),
    compare('requestsPerSecond', t.subject, t.baselinePrebuilt, VERSUS.prebuilt),
    compare('requestsPerSecond', t.subject, t.subjectMemory, VERSUS.memory, {
      minRatio: minRatio.lmdb,
    }),
    compare('requestsPerSecond', t.subject, t.subjectNoCaches, VERSUS.noCaches),
  ];
}

/** REST create with metrics against without (both DATA_DIR=:memory:, the median of fresh pairs). */
function metricsRows({ create }: MetricsResults) {
  const compare = rowsOf('REST create');
  const { withMetrics, withoutMetrics } = create;
  return [
    compare('requestsPerSecond', withMetrics, withoutMetrics, VERSUS.noMetrics, {
      minRatio: 0.95,
    }),
    compare('serverCpuMsPerRequest', withMetrics, withoutMetrics, VERSUS.noMetrics),
  ];
}

/**
 * The most REST create on LMDB could reach against bare express (reported): a create does at
 * least what bare express does (the cheaper of its two builds: parse the request and its JSON
 * body, answer JSON of the same size) plus one durable link write, which lmdb-js alone costs
 * `write` (one process, the same writes in flight, no shortlink code). A process bound by its
 * CPU serves in inverse proportion to its CPU per request, so this row's ratio is the ceiling
 * of the REST create row's, whatever shortlink's own code costs.
 */
function createFloorRow(
  create: Pick<HttpResults['create'], 'baseline' | 'baselinePrebuilt'>,
  write: Rate,
): Row {
  const { baseline, baselinePrebuilt } = create;
  const bare = Math.min(
    baseline.serverCpuMsPerRequest ?? Number.NaN,
    baselinePrebuilt.serverCpuMsPerRequest ?? Number.NaN,
  );
  const floorCpuMs = bare + write.cpuMicrosPerCall / 1000;
  // The plain baseline's rate, scaled from its CPU per request to the floor's.
  const baselineRate = baseline.requestsPerSecond;
  const atMost = (baselineRate * (baseline.serverCpuMsPerRequest ?? Number.NaN)) / floorCpuMs;
  return row(
    `REST create req/s at most on LMDB (bare express's CPU per request plus lmdb-js alone's per durable write: ${floorCpuMs.toFixed(3)} ms)`,
    Number.isFinite(atMost) ? atMost : null,
    baselineRate,
  );
}

/** What only REST create measures: the store's latency cost, idempotency keys. */
function createOnlyRows(create: HttpResults['create']): Row[] {
  return [
    rowsOf('REST create')('p99Ms', create.subject, create.subjectMemory, VERSUS.memory),
    ...idempotencyRows(create),
  ];
}

/** A fresh key per request against none, and a replay against a create (on one subject). */
function idempotencyRows(c: Record<IdempotencyTarget, Summary>): Row[] {
  const compare = rowsOf('REST create');
  const replay = rowsOf('REST idempotent replay');
  return [
    compare('requestsPerSecond', c.subjectFreshKey, c.subjectRebuilt, VERSUS.noKey, {
      minRatio: 0.75,
    }),
    replay('requestsPerSecond', c.subjectReplay, c.subject, VERSUS.create, { minRatio: 1 }),
    replay('p50Ms', c.subjectReplay, c.subject, VERSUS.create),
  ];
}

/** Following after link governance: against the build before it, and a 410 against a redirect. */
function followGovernanceRows(follow: FollowGovernanceResults): Row[] {
  const compare = rowsOf('follow link');
  const rows = [
    compare('requestsPerSecond', follow.gone, follow.redirect, VERSUS.redirect, { minRatio: 1 }),
    compare('serverCpuMsPerRequest', follow.gone, follow.redirect, VERSUS.redirect),
    compare('serverCpuMsPerRequest', follow.capped, follow.redirect, VERSUS.capped),
    compare('requestsPerSecond', follow.capped, follow.redirect, VERSUS.capped),
  ];
  if (!follow.before) return rows;
  return [
    compare('serverCpuMsPerRequest', follow.redirect, follow.before, VERSUS.before, {
      maxRatio: 1,
    }),
    compare('requestsPerSecond', follow.redirect, follow.before, VERSUS.before),
    compare('p50Ms', follow.redirect, follow.before, VERSUS.before),
    ...rows,
  ];
}

function runKeyedWrites(seedFile: string, dataDir: string, settings: BenchSettings) {
  log('keyed writes: core links.create with a fresh key vs none; lmdb-js link and record vs link');
  // Two warm-ups and six rounds per pair, two pairs; --expose-gc for a full collection per round.
  const seconds = 4 * settings.warmupSeconds + 12 * settings.seconds;
  return runChild<KeyedWritesResult>(
    'in-process/keyed-writes',
    [seedFile, dataDir, String(settings.seconds), String(settings.warmupSeconds)],
    { timeoutMs: (seconds + 120) * 1000, execArgv: ['--expose-gc'] },
  );
}

function keyedWritesRows({ core, lmdb }: KeyedWritesResult): Row[] {
  const coreLabel = 'core links.create (in-process, LMDB), a fresh idempotency key vs none';
  const lmdbLabel = 'lmdb-js alone: a link and a record per transaction vs a link alone';
  return [
    row(`${coreLabel}: calls/s`, core.keyed.callsPerSecond, core.plain.callsPerSecond),
    row(
      `${coreLabel}: CPU microseconds per call`,
      core.keyed.cpuMicrosPerCall,
      core.plain.cpuMicrosPerCall,
    ),
    row(`${lmdbLabel}: calls/s`, lmdb.linkAndRecord.callsPerSecond, lmdb.link.callsPerSecond),
    row(
      `${lmdbLabel}: CPU microseconds per call`,
      lmdb.linkAndRecord.cpuMicrosPerCall,
      lmdb.link.cpuMicrosPerCall,
    ),
  ];
}

/** Core create and follow on an LMDB store with BENCH_GROWTH_LINKS more links than a small one. */
function runGrowth(seedFile: string, dataDir: string, settings: BenchSettings) {
  log(`growth: two LMDB stores, one with ${settings.growthLinks} more links (BENCH_GROWTH_LINKS)`);
  return runChild<GrowthResult>(
    'in-process/growth',
    [seedFile, dataDir, String(settings.growthLinks), String(settings.seconds)],
    { timeoutMs: 3 * 60 * 60 * 1000, execArgv: ['--expose-gc'] },
  );
}

function growthRows(growth: GrowthResult): Row[] {
  return [
    row(
      `growth: core create calls/s, LMDB with ${growth.links} more links vs a small store`,
      growth.full.createsPerSecond,
      growth.empty.createsPerSecond,
      { minRatio: 0.8 },
    ),
    row(
      `growth: core follow (resolve) p99 ms, LMDB with ${growth.links} more links vs a small store`,
      growth.full.followP99Ms,
      growth.empty.followP99Ms,
      { maxRatio: 1.2 },
    ),
    row('growth: LMDB disk bytes per link', growth.diskBytesPerLink, null),
    row(`growth: seconds to fill ${growth.links} links in batches`, growth.fillSeconds, null),
  ];
}

/** gRPC create against its bare baseline, and on LMDB against DATA_DIR=:memory:. */
function grpcRows(grpc: GrpcResults): Row[] {
  const compare = rowsOf('gRPC create');
  return [
    ...againstBaseline('gRPC create', grpc.subject, grpc.baseline, 0.6),
    compare('requestsPerSecond', grpc.subject, grpc.subjectMemory, VERSUS.memory, {
      minRatio: 0.7,
    }),
  ];
}

/** MongoDB round trips per create and per follow, the first (cold) and the second (warm). */
function roundTripRows(caches: RoundTrips, noCaches: RoundTrips): Row[] {
  return (['create', 'follow'] as const).flatMap((operation) =>
    (['cold', 'warm'] as const).map((visit) =>
      row(
        `MongoDB round trips per ${operation}, ${visit}, caches on vs off`,
        caches[operation][visit],
        noCaches[operation][visit],
        visit === 'warm' ? { max: WARM_ROUND_TRIPS_MAX[operation] } : undefined,
      ),
    ),
  );
}

/**
 * WORKERS=2 against WORKERS=1: throughput, CPU per request (at most 1.3 times one process's: a
 * second process on one LMDB environment costs lmdb-js alone 1.26 to 1.44 times the CPU per write
 * here), and the busiest worker's share of the workers' CPU (reported; 0.5 is an even split).
 */
function workersRows(workers: WorkersResults): Row[] {
  return (
    [
      ['REST create', workers.create],
      ['follow link', workers.follow],
      ['gRPC create', workers.grpc],
    ] as const
  ).flatMap(([name, { two, one }]) => {
    const compare = rowsOf(`WORKERS=2 vs WORKERS=1 (LMDB): ${name}`);
    return [
      compare('requestsPerSecond', two, one),
      compare('serverCpuMsPerRequest', two, one, VERSUS.allProcesses, { maxRatio: 1.3 }),
      row(
        `WORKERS=2 (LMDB): ${name}: the busiest worker's share of the workers' CPU`,
        two.busiestWorkerShare ?? null,
        null,
      ),
    ];
  });
}

/**
 * lmdb-js alone, writes split over two processes on one environment against one process
 * (reported): what a second writer process costs LMDB itself, under the WORKERS rows.
 */
function runSharedWrites(dataDir: string, settings: BenchSettings) {
  log('shared writes: lmdb-js alone, writes in one process vs split over two on one environment');
  const seconds = 2 * settings.warmupSeconds + 2 * settings.rounds * settings.seconds;
  return runChild<SharedWritesResult>(
    'in-process/shared-writes',
    [
      'measure',
      dataDir,
      String(settings.seconds),
      String(settings.warmupSeconds),
      String(settings.rounds),
    ],
    { timeoutMs: (seconds + 120) * 1000 },
  );
}

function sharedWritesRows({ one, two }: SharedWritesResult): Row[] {
  const label = `lmdb-js alone, ${CONCURRENCY} link writes in flight (each awaiting its fsync): two processes on one environment vs one`;
  return [
    row(`${label}: writes/s`, two.callsPerSecond, one.callsPerSecond),
    row(`${label}: CPU microseconds per write`, two.cpuMicrosPerCall, one.cpuMicrosPerCall),
  ];
}

/** Exit status 1 when a row misses its target. */
function failOnMissedTargets(rows: readonly Row[]): void {
  if (rows.some((r) => r.pass === false)) process.exitCode = 1;
}

/** What a BENCH_ONLY run ends with: its rows, printed and not written. */
function printOnly(rows: Row[]): void {
  process.stdout.write(`\n${formatTable(rows)}\n`);
  failOnMissedTargets(rows);
}

/**
 * `npm run bench`: every path measured against its bare baseline in the same run, each server in
 * its own process and the load generator in this one. Writes bench-results/latest.json and prints
 * the table.
 */
async function main(): Promise<void> {
  const settings = loadSettings();
  const startedAt = new Date();
  mkdirSync(settings.resultsDir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'shortlink-bench-'));
  try {
    const seedFile = writeBenchSeed(work);
    log(
      `bench: ${settings.warmupSeconds} s warm-up, then ${settings.rounds} rounds of ${settings.seconds} s per target, ${CONCURRENCY} connections`,
    );

    if (settings.only === 'create') {
      const c = await runCreateScenario(seedFile, settings, log, join(work, 'data-create'));
      const lmdbAlone = await runSharedWrites(join(work, 'data-shared-writes'), settings);
      printOnly([
        ...againstBaseline('REST create', c.subject, c.baseline, REST_CREATE_MIN_RATIO.baseline),
        createFloorRow(c, lmdbAlone.one),
        rowsOf('REST create')('requestsPerSecond', c.subject, c.subjectMemory, VERSUS.memory, {
          minRatio: REST_CREATE_MIN_RATIO.lmdb,
        }),
      ]);
      return;
    }
    if (settings.only === 'metrics') {
      printOnly(metricsRows(await runMetricsScenario(seedFile, settings, log)));
      return;
    }
    if (settings.only === 'idempotency') {
      const dataDir = join(work, 'data-idempotency');
      const rows = idempotencyRows(await runIdempotencyScenario(seedFile, settings, log, dataDir));
      const keyedWrites = await runKeyedWrites(seedFile, join(work, 'data-keyed-writes'), settings);
      printOnly([...rows, ...keyedWritesRows(keyedWrites)]);
      return;
    }
    if (settings.only === 'grpc') {
      const grpcOnly = await runGrpcScenario(seedFile, settings, log, () =>
        mkdtempSync(join(work, 'data-grpc-')),
      );
      printOnly(grpcOnly === null ? [] : grpcRows(grpcOnly));
      return;
    }
    if (settings.only === 'follow') {
      let followDirs = 0;
      const followDir = () => join(work, `data-follow-${(followDirs += 1)}`);
      printOnly(
        followGovernanceRows(await runFollowGovernanceScenario(seedFile, settings, log, followDir)),
      );
      return;
    }
    if (settings.only === 'growth') {
      printOnly(growthRows(await runGrowth(seedFile, join(work, 'data-growth'), settings)));
      return;
    }
    log('workers: WORKERS=2 against WORKERS=1, both on LMDB');
    const workers = await runWorkersScenario(seedFile, work, settings, log);
    const sharedWrites = await runSharedWrites(join(work, 'data-shared-writes'), settings);
    if (settings.only === 'workers') {
      printOnly([...workersRows(workers), ...sharedWritesRows(sharedWrites)]);
      return;
    }
    let dataDirs = 0;
    const newDataDir = () => join(work, `data-${(dataDirs += 1)}`);
    const http = await runHttpScenarios(seedFile, settings, log, newDataDir);
    const grpc = await runGrpcScenario(seedFile, settings, log, newDataDir);
    const metrics = await runMetricsScenario(seedFile, settings, log);
    log('follow: this build vs the build before link governance; a 410 vs a redirect');
    const followGovernance = await runFollowGovernanceScenario(seedFile, settings, log, newDataDir);

    const coreOn = (dataDir: string) =>
      runChild<CoreCeiling>('in-process/core-ceiling', [
        seedFile,
        String(settings.seconds),
        String(settings.rounds),
        String(settings.warmupSeconds),
        dataDir,
      ]);
    log('core: in-process links.create, LMDB and DATA_DIR=:memory:');
    const core = await coreOn(newDataDir());
    const coreMemory = await coreOn(IN_MEMORY_DATA_DIR);
    const keyedWrites = await runKeyedWrites(seedFile, newDataDir(), settings);
    const growth = await runGrowth(seedFile, newDataDir(), settings);
    log('memory: 100,000 links; 100,000 limiter tokens');
    const memoryOptions = { execArgv: ['--expose-gc'] };
    const links = await runChild<MemoryResult>(
      'in-process/memory',
      ['links', seedFile],
      memoryOptions,
    );
    const tokens = await runChild<MemoryResult>('in-process/memory', ['limiter'], memoryOptions);

    log('MongoDB round trips: counted per create and per follow, caches on and off');
    const trips = await countRoundTrips(true);
    const tripsNoCaches = await countRoundTrips(false);

    const rows: Row[] = [
      ...httpPathRows('REST create', http.create, REST_CREATE_MIN_RATIO),
      createFloorRow(http.create, sharedWrites.one),
      ...createOnlyRows(http.create),
      ...metricsRows(metrics),
      ...httpPathRows('follow link', http.follow, { baseline: 0.8, lmdb: 0.9 }),
      ...followGovernanceRows(followGovernance),
      ...roundTripRows(trips, tripsNoCaches),
    ];
    if (grpc) {
      rows.push(...grpcRows(grpc));
    } else {
      log('gRPC: the gRPC gateway is not available in this build; its rows are missing');
    }
    rows.push(
      row(
        'core links.create calls/s (in-process), LMDB vs DATA_DIR=:memory:',
        core.callsPerSecond,
        coreMemory.callsPerSecond,
      ),
      ...keyedWritesRows(keyedWrites),
      ...growthRows(growth),
      row('memory: RSS MB per 100k links', links.rssBytes / MB, null),
      row('memory: heap MB per 100k links', links.heapBytes / MB, null),
      row('memory: RSS MB per 100k limiter tokens', tokens.rssBytes / MB, null),
      row('memory: heap MB per 100k limiter tokens', tokens.heapBytes / MB, null),
    );
    rows.push(...workersRows(workers), ...sharedWritesRows(sharedWrites));
    const summaries = [
      ...Object.values(workers.create),
      ...Object.values(workers.follow),
      ...Object.values(workers.grpc),
      ...Object.values(http.create),
      ...Object.values(http.follow),
      ...Object.values(followGovernance),
      ...metrics.pairs.flatMap((pair) => Object.values(pair)),
      ...(grpc ? [grpc.baseline, grpc.subject, grpc.subjectMemory] : []),
    ];
    const failures = summaries.reduce((t, s) => t + s.errors + s.unexpectedStatus, 0);
    rows.push(row('errors + unexpected statuses, all runs', failures, null, { max: 0 }));

    const results = {
      date: startedAt.toISOString(),
      machine: machine(),
      settings: {
        seconds: settings.seconds,
        rounds: settings.rounds,
        warmupSeconds: settings.warmupSeconds,
        connections: CONCURRENCY,
        growthLinks: settings.growthLinks,
      },
      table: rows,
      http,
      metrics,
      grpc,
      workers,
      sharedWrites,
      core,
      coreMemory,
      growth,
      memory: { links, limiterTokens: tokens },
      roundTrips: { caches: trips, noCaches: tripsNoCaches },
    };
    writeFileSync(
      join(settings.resultsDir, 'latest.json'),
      JSON.stringify(results, null, 2) + '\n',
    );
    const { cores, cpuModel, node } = results.machine;
    process.stdout.write(
      `\nshortlink bench, ${results.date}, ${cores} cores (${cpuModel}), node ${node}\n\n${formatTable(rows)}\n\nwritten to bench-results/latest.json\n`,
    );
    failOnMissedTargets(rows);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
