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
  /**
   * A WORKERS cluster: the busiest worker's share of the workers' CPU in the round (0.5 for an
   * even split, 1 when one worker did all the work); null for one process or without /proc.
   */
  busiestWorkerShare?: number | null;
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
    busiestWorkerShare: rounds.every((r) => r.busiestWorkerShare != null)
      ? median(rounds.map((r) => r.busiestWorkerShare as number))
      : null,
    rounds: [...rounds],
  };
}

interface Target<TName extends string> {
  name: TName;
  run: (seconds: number) => Promise<Round>;
}
type RoundOptions = { rounds: number; seconds: number; warmupSeconds: number };
type OnRound<TName extends string> = (name: TName, index: number, round: Round) => void;

/** One untimed warm-up of every target, then `rounds` rounds, each run by `runAll`. */
async function measure<TName extends string>(
  targets: ReadonlyArray<Target<TName>>,
  options: RoundOptions,
  onRound: OnRound<TName>,
  runAll: (seconds: number) => Promise<Round[]>,
): Promise<Record<TName, Summary>> {
  await runAll(options.warmupSeconds);
  const collected = new Map<TName, Round[]>(targets.map((t) => [t.name, []]));
  for (let index = 0; index < options.rounds; index += 1) {
    const rounds = await runAll(options.seconds);
    targets.forEach((target, at) => {
      const round = rounds[at] as Round;
      collected.get(target.name)?.push(round);
      onRound(target.name, index, round);
    });
  }
  const result = {} as Record<TName, Summary>;
  for (const [name, rounds] of collected) result[name] = summarize(rounds);
  return result;
}

/**
 * Runs `rounds` alternating rounds over `targets` (A, B, C, A, B, C, ...) after one short warm-up
 * of each, so that drift on a shared machine touches every target alike.
 */
export function alternate<TName extends string>(
  targets: ReadonlyArray<Target<TName>>,
  options: RoundOptions,
  onRound: OnRound<TName> = () => undefined,
): Promise<Record<TName, Summary>> {
  return measure(targets, options, onRound, async (seconds) => {
    const rounds: Round[] = [];
    for (const target of targets) rounds.push(await target.run(seconds));
    return rounds;
  });
}

/**
 * Runs `rounds` rounds in which every target is loaded at the same time (after a warm-up of all
 * at once): a round's figures of one target cover the same seconds as the others', so this
 * machine's swings touch them alike, which alternating rounds cannot promise. For services that
 * differ in one setting; the servers share the cores, so each round's rates are lower.
 */
export function simultaneous<TName extends string>(
  targets: ReadonlyArray<Target<TName>>,
  options: RoundOptions,
  onRound: OnRound<TName> = () => undefined,
): Promise<Record<TName, Summary>> {
  return measure(targets, options, onRound, (seconds) =>
    Promise.all(targets.map((target) => target.run(seconds))),
  );
}
