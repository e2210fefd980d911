import { withChildren } from '../support/child';
import { IN_MEMORY_DATA_DIR } from '../../../core/runtime';
import type { BenchChild } from '../support/child';
import { cpusOf, pinProcess } from '../support/cpu-pinning';
import { simultaneous, type Round, type Summary } from '../support/measurement';
import type { BenchSettings } from '../support/settings';
import { httpRound } from '../load/http-load';
import { createLoad, startSubject } from './http-scenarios';

type Side = 'withMetrics' | 'withoutMetrics';

export interface MetricsResults {
  /** The summaries of the pair whose ratio is the median of all pairs'. */
  create: Record<Side, Summary>;
  /** Every pair's summaries, in the order they ran. */
  pairs: Array<Record<Side, Summary>>;
  /** Every pair's req/s ratio, with metrics over without, in the same order. */
  pairRatios: number[];
}

/**
 * Fresh pairs of services, each measured on its own: a process can run slow as a whole for its
 * lifetime (seen on either side, up to a third more CPU per request in every round), so one pair
 * measures that process's luck as much as the metrics.
 */
export const METRICS_PAIRS = 5;

type Subject = BenchChild<{ httpPort: number }>;

/**
 * The cost of metrics: REST create on two services that differ only in METRICS_PORT (both
 * DATA_DIR=:memory:, so no disk in the way), loaded at the same time in every round, both pinned
 * to one CPU with the load generator on the other. Alternating rounds let this machine's swings
 * (up to a third between two rounds of one server) decide a 5 % target, and so do simultaneous
 * rounds left to the scheduler (one service may get a CPU to itself for a round); two services
 * time-sharing one CPU see the same swings and get equal shares of it.
 *
 * That is done for METRICS_PAIRS fresh pairs, and the pair with the median ratio is the figure,
 * so one slow process (on either side) moves it no more than it moves the median. Each service
 * gets half a CPU, so each warms up twice as long as a service alone. Run alone with
 * `BENCH_ONLY=metrics`, and within the full run.
 */
export async function runMetricsScenario(
  seedFile: string,
  settings: BenchSettings,
  log: (line: string) => void,
): Promise<MetricsResults> {
  log(
    `metrics: REST create with metrics against METRICS_PORT=0, both DATA_DIR=:memory:, ${METRICS_PAIRS} fresh pairs`,
  );
  const pairs: Array<Record<Side, Summary>> = [];
  for (let pair = 1; pair <= METRICS_PAIRS; pair += 1) {
    const summaries = await measurePair(seedFile, settings, (line) => log(`pair ${pair}: ${line}`));
    log(`metrics pair ${pair}: with/without req/s ${ratioOf(summaries).toFixed(3)}`);
    pairs.push(summaries);
  }
  // The middle pair by ratio (METRICS_PAIRS is odd, so its ratio is the median).
  const byRatio = [...pairs].sort((a, b) => ratioOf(a) - ratioOf(b));
  const chosen = byRatio[Math.floor(byRatio.length / 2)];
  if (!chosen) throw new Error('no metrics pair was measured');
  return { create: chosen, pairs, pairRatios: pairs.map(ratioOf) };
}

function ratioOf(summaries: Record<Side, Summary>): number {
  return summaries.withMetrics.requestsPerSecond / summaries.withoutMetrics.requestsPerSecond;
}

/** One pair of fresh services, pinned and loaded together, then stopped. */
async function measurePair(
  seedFile: string,
  settings: BenchSettings,
  log: (line: string) => void,
): Promise<Record<Side, Summary>> {
  const loadGeneratorCpus = cpusOf(process.pid);
  try {
    return await withChildren(async (keep) => {
      const withMetrics = await keep(startSubject(seedFile, settings, 'info', IN_MEMORY_DATA_DIR));
      const without = await keep(
        startSubject(seedFile, settings, 'info', IN_MEMORY_DATA_DIR, { METRICS_PORT: '0' }),
      );
      // Both services time-share one CPU and the load generator has the other, so neither service
      // gets a CPU of its own for a round by chance of the scheduler's placement.
      const pinned =
        loadGeneratorCpus !== null &&
        pinProcess(withMetrics.process.pid, '1', log) &&
        pinProcess(without.process.pid, '1', log) &&
        pinProcess(process.pid, '0', log);
      log(
        pinned
          ? 'both services share CPU 1, the load generator has CPU 0'
          : 'CPUs not pinned (taskset missing or failing, or one CPU): rounds are noisier',
      );
      const on = (server: Subject) => (seconds: number) =>
        httpRound({ port: server.ready.httpPort, pid: server.process.pid }, createLoad, seconds);
      return await simultaneous(
        [
          { name: 'withMetrics', run: on(withMetrics) },
          { name: 'withoutMetrics', run: on(without) },
        ],
        { ...settings, warmupSeconds: settings.warmupSeconds * 2 },
        (name, index, round: Round) =>
          log(
            `round ${index + 1} ${name === 'withMetrics' ? 'with' : 'without'}: ${round.requestsPerSecond.toFixed(0)} req/s, server CPU ${round.serverCpuMsPerRequest?.toFixed(3)} ms/req, unexpected ${round.unexpectedStatus}, errors ${round.errors}`,
          ),
      );
    });
  } finally {
    if (loadGeneratorCpus !== null) pinProcess(process.pid, loadGeneratorCpus, log);
  }
}
