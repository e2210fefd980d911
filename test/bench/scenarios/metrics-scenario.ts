import { IN_MEMORY_DATA_DIR } from '../../../core/runtime';
import type { BenchChild } from '../support/child';
import { alternate, type Round, type Summary } from '../support/measurement';
import type { BenchSettings } from '../support/settings';
import { httpRound } from '../load/http-load';
import { createLoad, startSubject } from './http-scenarios';

export interface MetricsResults {
  create: Record<'subjectMemory' | 'subjectNoMetrics', Summary>;
}

/**
 * `BENCH_ONLY=metrics`: the cost of metrics alone. REST create on two services that differ only
 * in METRICS_PORT (both DATA_DIR=:memory:, so no disk in the way), in alternating rounds, and
 * nothing else in the run, so the comparison can take more rounds than the full run gives it.
 */
export async function runMetricsScenario(
  seedFile: string,
  settings: BenchSettings,
  log: (line: string) => void,
): Promise<MetricsResults> {
  const started: Array<BenchChild<{ httpPort: number }>> = [];
  try {
    const withMetrics = await startSubject(seedFile, settings, 'info', IN_MEMORY_DATA_DIR);
    started.push(withMetrics);
    const without = await startSubject(seedFile, settings, 'info', IN_MEMORY_DATA_DIR, {
      METRICS_PORT: '0',
    });
    started.push(without);
    const on = (server: BenchChild<{ httpPort: number }>) => (seconds: number) =>
      httpRound({ port: server.ready.httpPort, pid: server.process.pid }, createLoad, seconds);
    const create = await alternate(
      [
        { name: 'subjectMemory', run: on(withMetrics) },
        { name: 'subjectNoMetrics', run: on(without) },
      ],
      settings,
      (name, index, round: Round) =>
        log(
          `metrics round ${index + 1} ${name === 'subjectMemory' ? 'with' : 'without'}: ${round.requestsPerSecond.toFixed(0)} req/s, server CPU ${round.serverCpuMsPerRequest?.toFixed(3)} ms/req, unexpected ${round.unexpectedStatus}, errors ${round.errors}`,
        ),
    );
    return { create };
  } finally {
    await Promise.all(started.map((child) => child.stop()));
  }
}
