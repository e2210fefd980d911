/** One timed run of one target. */
export interface Round {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Answers with another status class than the expected one (2xx, or 3xx for redirects). */
  unexpectedStatus: number;
  /** Connection errors, timeouts and failed calls. */
  errors: number;
  /** CPU time the server process spent per answered request (null without /proc). */
  serverCpuMsPerRequest: number | null;
}

/**
 * A target's rounds in one: the medians of the rates, latencies and CPU time, the totals of the
 * requests and failures, and every round.
 */
export interface Summary extends Round {
  rounds: Round[];
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Value at quantile `q` (0..1) of sorted samples (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}

export function summarize(rounds: readonly Round[]): Summary {
  const sum = (pick: (round: Round) => number) => rounds.reduce((t, r) => t + pick(r), 0);
  return {
    requestsPerSecond: median(rounds.map((r) => r.requestsPerSecond)),
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    requests: sum((r) => r.requests),
    unexpectedStatus: sum((r) => r.unexpectedStatus),
    errors: sum((r) => r.errors),
    serverCpuMsPerRequest: rounds.every((r) => r.serverCpuMsPerRequest !== null)
      ? median(rounds.map((r) => r.serverCpuMsPerRequest as number))
      : null,
    rounds: [...rounds],
  };
}

/**
 * Runs `rounds` alternating rounds over `targets` (A, B, C, A, B, C, ...) after one short warm-up
 * of each, so that drift on a shared machine touches every target alike.
 */
export async function alternate<TName extends string>(
  targets: ReadonlyArray<{ name: TName; run: (seconds: number) => Promise<Round> }>,
  options: { rounds: number; seconds: number; warmupSeconds: number },
  onRound: (name: TName, index: number, round: Round) => void = () => undefined,
): Promise<Record<TName, Summary>> {
  for (const target of targets) await target.run(options.warmupSeconds);
  const collected = new Map<TName, Round[]>(targets.map((t) => [t.name, []]));
  for (let index = 0; index < options.rounds; index += 1) {
    for (const target of targets) {
      const round = await target.run(options.seconds);
      collected.get(target.name)?.push(round);
      onRound(target.name, index, round);
    }
  }
  const result = {} as Record<TName, Summary>;
  for (const [name, rounds] of collected) result[name] = summarize(rounds);
  return result;
}
