import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { IN_MEMORY_DATA_DIR } from '../../core/runtime';
import type { GrowthResult } from './in-process/growth';
import { runChild } from './support/child';
import { writeBenchSeed } from './support/credentials';
import { formatTable, row, type Row } from './support/report';
import { loadSettings } from './support/settings';
import { runHttpScenarios } from './scenarios/http-scenarios';
import { runGrpcScenario } from './scenarios/grpc-scenario';
import { runWorkersScenario, type WorkersResults } from './scenarios/workers-scenario';
import { countRoundTrips } from './in-process/round-trips';

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

/** WORKERS=2 against WORKERS=1: throughput, and CPU per request that must not grow by > 10%. */
function workersRows(workers: WorkersResults): Row[] {
  const label = 'WORKERS=2 vs WORKERS=1 (LMDB)';
  return (
    [
      ['REST create', workers.create],
      ['follow link', workers.follow],
      ['gRPC create', workers.grpc],
    ] as const
  ).flatMap(([name, result]) => [
    row(`${label}: ${name} req/s`, result.two.requestsPerSecond, result.one.requestsPerSecond),
    row(
      `${label}: ${name} server CPU ms/req, all processes`,
      result.two.serverCpuMsPerRequest,
      result.one.serverCpuMsPerRequest,
      { maxRatio: 1.1 },
    ),
  ]);
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
      `bench: ${settings.warmupSeconds} s warm-up, then ${settings.rounds} rounds of ${settings.seconds} s per target, 32 connections`,
    );

    log('workers: WORKERS=2 against WORKERS=1, both on LMDB');
    const workers = await runWorkersScenario(seedFile, work, settings, log);
    if (settings.only === 'workers') {
      const rows = workersRows(workers);
      process.stdout.write(`\n${formatTable(rows)}\n`);
      if (rows.some((r) => r.pass === false)) process.exitCode = 1;
      return;
    }
    let dataDirs = 0;
    const newDataDir = () => join(work, `data-${(dataDirs += 1)}`);
    const http = await runHttpScenarios(seedFile, settings, log, newDataDir);
    const grpc = await runGrpcScenario(seedFile, settings, log, newDataDir);

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
    log(`growth: LMDB empty, then filled with ${settings.growthLinks} links (BENCH_GROWTH_LINKS)`);
    const growth = await runChild<GrowthResult>(
      'in-process/growth',
      [seedFile, newDataDir(), String(settings.growthLinks), String(settings.seconds)],
      { timeoutMs: 3 * 60 * 60 * 1000 },
    );
    log('memory: 100,000 links; 100,000 limiter tokens');
    const memoryOptions = { execArgv: ['--expose-gc'] };
    const links = await runChild<MemoryResult>(
      'in-process/memory',
      ['links', seedFile],
      memoryOptions,
    );
    const tokens = await runChild<MemoryResult>('in-process/memory', ['limiter'], memoryOptions);

    log('store round trips: counted per create and per follow, caches on and off');
    const trips = await countRoundTrips(true);
    const tripsNoCaches = await countRoundTrips(false);

    const rows: Row[] = [
      row(
        'REST create req/s',
        http.create.subject.requestsPerSecond,
        http.create.baseline.requestsPerSecond,
        { minRatio: 0.6 },
      ),
      row('REST create p50 ms', http.create.subject.p50Ms, http.create.baseline.p50Ms),
      row('REST create p99 ms', http.create.subject.p99Ms, http.create.baseline.p99Ms),
      row(
        'REST create server CPU ms/req',
        http.create.subject.serverCpuMsPerRequest,
        http.create.baseline.serverCpuMsPerRequest,
      ),
      row(
        'REST create req/s, LOG_LEVEL=warn',
        http.create.subjectWarn.requestsPerSecond,
        http.create.baseline.requestsPerSecond,
      ),
      row(
        'REST create req/s with metrics vs METRICS_PORT=0 (both DATA_DIR=:memory:)',
        http.create.subjectMemory.requestsPerSecond,
        http.create.subjectNoMetrics.requestsPerSecond,
        { minRatio: 0.95 },
      ),
      row(
        'REST create server CPU ms/req with metrics vs METRICS_PORT=0 (both :memory:)',
        http.create.subjectMemory.serverCpuMsPerRequest,
        http.create.subjectNoMetrics.serverCpuMsPerRequest,
      ),
      row(
        'REST create req/s vs bare express with prebuilt prototypes',
        http.create.subject.requestsPerSecond,
        http.create.baselinePrebuilt.requestsPerSecond,
      ),
      row(
        'REST create req/s, a fresh Idempotency-Key per request, vs without a key',
        http.create.subjectFreshKey.requestsPerSecond,
        http.create.subjectRebuilt.requestsPerSecond,
        { minRatio: 0.85 },
      ),
      row(
        'REST idempotent replay req/s vs REST create req/s',
        http.create.subjectReplay.requestsPerSecond,
        http.create.subject.requestsPerSecond,
        { minRatio: 1 },
      ),
      row(
        'REST idempotent replay p50 ms',
        http.create.subjectReplay.p50Ms,
        http.create.subject.p50Ms,
      ),
      row(
        'follow link req/s',
        http.follow.subject.requestsPerSecond,
        http.follow.baseline.requestsPerSecond,
        { minRatio: 0.8 },
      ),
      row('follow link p50 ms', http.follow.subject.p50Ms, http.follow.baseline.p50Ms),
      row('follow link p99 ms', http.follow.subject.p99Ms, http.follow.baseline.p99Ms),
      row(
        'follow link server CPU ms/req',
        http.follow.subject.serverCpuMsPerRequest,
        http.follow.baseline.serverCpuMsPerRequest,
      ),
      row(
        'follow link req/s, LOG_LEVEL=warn',
        http.follow.subjectWarn.requestsPerSecond,
        http.follow.baseline.requestsPerSecond,
      ),
      row(
        'follow link req/s vs bare express with prebuilt prototypes',
        http.follow.subject.requestsPerSecond,
        http.follow.baselinePrebuilt.requestsPerSecond,
      ),
      row(
        'REST create req/s, LMDB vs DATA_DIR=:memory:',
        http.create.subject.requestsPerSecond,
        http.create.subjectMemory.requestsPerSecond,
        { minRatio: 0.8 },
      ),
      row(
        'REST create p99 ms, LMDB vs DATA_DIR=:memory:',
        http.create.subject.p99Ms,
        http.create.subjectMemory.p99Ms,
      ),
      row(
        'follow link req/s, LMDB vs DATA_DIR=:memory:',
        http.follow.subject.requestsPerSecond,
        http.follow.subjectMemory.requestsPerSecond,
        { minRatio: 0.9 },
      ),
    ];
    rows.push(
      row(
        'REST create req/s, caches on vs off (embedded store)',
        http.create.subject.requestsPerSecond,
        http.create.subjectNoCaches.requestsPerSecond,
      ),
      row(
        'follow link req/s, caches on vs off (embedded store)',
        http.follow.subject.requestsPerSecond,
        http.follow.subjectNoCaches.requestsPerSecond,
      ),
      row(
        'store round trips per create, cold, caches on vs off',
        trips.create.cold,
        tripsNoCaches.create.cold,
      ),
      row(
        'store round trips per create, warm, caches on vs off',
        trips.create.warm,
        tripsNoCaches.create.warm,
        {
          max: 2,
        },
      ),
      row(
        'store round trips per follow, cold, caches on vs off',
        trips.follow.cold,
        tripsNoCaches.follow.cold,
      ),
      row(
        'store round trips per follow, warm, caches on vs off',
        trips.follow.warm,
        tripsNoCaches.follow.warm,
        {
          max: 0,
        },
      ),
    );
    if (grpc) {
      rows.push(
        row('gRPC create req/s', grpc.subject.requestsPerSecond, grpc.baseline.requestsPerSecond, {
          minRatio: 0.6,
        }),
        row('gRPC create p50 ms', grpc.subject.p50Ms, grpc.baseline.p50Ms),
        row('gRPC create p99 ms', grpc.subject.p99Ms, grpc.baseline.p99Ms),
        row(
          'gRPC create server CPU ms/req',
          grpc.subject.serverCpuMsPerRequest,
          grpc.baseline.serverCpuMsPerRequest,
        ),
        row(
          'gRPC create req/s, LMDB vs DATA_DIR=:memory:',
          grpc.subject.requestsPerSecond,
          grpc.subjectMemory.requestsPerSecond,
          { minRatio: 0.8 },
        ),
      );
    } else {
      log('gRPC: the gRPC gateway is not available in this build; its rows are missing');
    }
    rows.push(
      row(
        'core links.create calls/s (in-process), LMDB vs DATA_DIR=:memory:',
        core.callsPerSecond,
        coreMemory.callsPerSecond,
      ),
      row(
        `growth: core create calls/s, LMDB with ${growth.links} links vs empty`,
        growth.full.createsPerSecond,
        growth.empty.createsPerSecond,
        { minRatio: 0.8 },
      ),
      row(
        `growth: core follow (resolve) p99 ms, LMDB with ${growth.links} links vs empty`,
        growth.full.followP99Ms,
        growth.empty.followP99Ms,
        { maxRatio: 1.2 },
      ),
      row('growth: LMDB disk bytes per link', growth.diskBytesPerLink, null),
      row(`growth: seconds to fill ${growth.links} links in batches`, growth.fillSeconds, null),
      row('memory: RSS MB per 100k links', links.rssBytes / MB, null),
      row('memory: heap MB per 100k links', links.heapBytes / MB, null),
      row('memory: RSS MB per 100k limiter tokens', tokens.rssBytes / MB, null),
      row('memory: heap MB per 100k limiter tokens', tokens.heapBytes / MB, null),
    );
    rows.push(...workersRows(workers));
    const summaries = [
      ...Object.values(workers.create),
      ...Object.values(workers.follow),
      ...Object.values(workers.grpc),
      ...Object.values(http.create),
      ...Object.values(http.follow),
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
        connections: 32,
        growthLinks: settings.growthLinks,
      },
      table: rows,
      http,
      grpc,
      workers,
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
    if (rows.some((r) => r.pass === false)) process.exitCode = 1;
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
