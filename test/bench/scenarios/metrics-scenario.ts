import { IN_MEMORY_DATA_DIR } from '../../../core/runtime';
import type { BenchChild } from '../support/child';
import { cpusOf, pinProcess } from '../support/cpu-pinning';
import { simultaneous, type Round, type Summary } from '../support/measurement';
import type { BenchSettings } from '../support/settings';
import { httpRound } from '../load/http-load';
import { createLoad, startSubject } from './http-scenarios';

export interface MetricsResults {
  create: Record<'withMetrics' | 'withoutMetrics', Summary>;
}

/**
 * The cost of metrics: REST create on two services that differ only in METRICS_PORT (both
 * DATA_DIR=:memory:, so no disk in the way), loaded at the same time in every round, both pinned
 * to one CPU with the load generator on the other. Alternating rounds let this machine's swings
 * (up to a third between two rounds of one server) decide a 5 % target, and so do simultaneous
 * rounds left to the scheduler (one service may get a CPU to itself for a round); two services
 * time-sharing one CPU see the same swings and get equal shares of it. Simultaneous rounds take
 * half the time, so the scenario runs twice the rounds. Run alone with `BENCH_ONLY=metrics`, and
 * within the full run.
 */
export async function runMetricsScenario(
  seedFile: string,
  settings: BenchSettings,
  log: (line: string) => void,
): Promise<MetricsResults> {
  log('metrics: REST create with metrics against METRICS_PORT=0, both DATA_DIR=:memory:');
  const started: Array<BenchChild<{ httpPort: number }>> = [];
  const loadGeneratorCpus = cpusOf(process.pid);
  try {
    const withMetrics = await startSubject(seedFile, settings, 'info', IN_MEMORY_DATA_DIR);
    started.push(withMetrics);
    const without = await startSubject(seedFile, settings, 'info', IN_MEMORY_DATA_DIR, {
      METRICS_PORT: '0',
    });
    started.push(without);
    // Both services time-share one CPU and the load generator has the other, so neither service
    // gets a CPU of its own for a round by chance of the scheduler's placement.
    const pinned =
      loadGeneratorCpus !== null &&
      pinProcess(withMetrics.process.pid, '1') &&
      pinProcess(without.process.pid, '1') &&
      pinProcess(process.pid, '0');
    log(
      pinned
        ? 'metrics: both services share CPU 1, the load generator has CPU 0'
        : 'metrics: CPUs not pinned (no taskset, or one CPU): rounds are noisier',
    );
    const on = (server: BenchChild<{ httpPort: number }>) => (seconds: number) =>
      httpRound({ port: server.ready.httpPort, pid: server.process.pid }, createLoad, seconds);
    const create = await simultaneous(
      [
        { name: 'withMetrics', run: on(withMetrics) },
        { name: 'withoutMetrics', run: on(without) },
      ],
      { ...settings, rounds: settings.rounds * 2 },
      (name, index, round: Round) =>
        log(
          `metrics round ${index + 1} ${name === 'withMetrics' ? 'with' : 'without'}: ${round.requestsPerSecond.toFixed(0)} req/s, server CPU ${round.serverCpuMsPerRequest?.toFixed(3)} ms/req, unexpected ${round.unexpectedStatus}, errors ${round.errors}`,
        ),
    );
    return { create };
  } finally {
    if (loadGeneratorCpus !== null) pinProcess(process.pid, loadGeneratorCpus);
    await Promise.all(started.map((child) => child.stop()));
  }
}
