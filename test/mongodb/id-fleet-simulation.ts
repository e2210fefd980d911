import type { Collection } from 'mongodb';
import type { CounterDocument } from '../../core/adapters/mongodb/documents';
import { LINK_ID_COUNTER, MongoIdSequence } from '../../core/adapters/mongodb/mongo-id-sequence';

/**
 * A fleet of P processes creating links at a fixed total rate, each with its own MongoIdSequence
 * (the real allocator, blocks and fetching ahead included) over one shared counter document,
 * on a virtual clock: every counter update takes `updateMs` of simulated time, nothing takes
 * real time, and the run is the same on every machine.
 */
export interface FleetSettings {
  processes: number;
  /** Creates per second over the whole fleet, spread round-robin over the processes. */
  createsPerSecond: number;
  /** Simulated seconds. */
  seconds: number;
  /** What one counter update takes, there and back (ms). */
  updateMs: number;
  /** ID_BLOCK_SIZE; the allocator's default when absent. */
  blockSize?: number;
}

export interface FleetResult {
  processes: number;
  seconds: number;
  ids: number;
  counterUpdates: number;
  /** Creates that found no id in hand and waited for a block. */
  waited: number;
  /** Ids reserved and not handed out when the run ends: what stopping then would lose. */
  unused: number;
  /** Every id handed out was handed out once. */
  unique: boolean;
  /** Each process's ids increased in the order its creates asked for them. */
  increasingPerProcess: boolean;
}

/** Scheduled completions of counter updates, in simulated time (all take the same time, so FIFO). */
class VirtualClock {
  now = 0;
  private readonly due: Array<{ at: number; run: () => void }> = [];

  after(ms: number, run: () => void): void {
    this.due.push({ at: this.now + ms, run });
  }

  /** Whether a completion is due by `time` (advanceTo would run it). */
  dueBy(time: number): boolean {
    return this.due.length > 0 && this.due[0]!.at <= time;
  }

  /** Runs every completion due by `time`, letting the allocators take each answer in turn. */
  async advanceTo(time: number): Promise<void> {
    while (this.due.length > 0 && this.due[0]!.at <= time) {
      const next = this.due.shift()!;
      this.now = next.at;
      next.run();
      // The answer travels through the store's promise chain before the allocator has it.
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.now = time;
  }

  get idle(): boolean {
    return this.due.length === 0;
  }
}

/** The counter document as the server holds it: each `$inc` applied once, atomically. */
function sharedCounter(clock: VirtualClock, updateMs: number) {
  const counter = { seq: 0, updates: 0 };
  const collection = {
    findOneAndUpdate: (_filter: unknown, update: { $inc: { seq: number } }) => {
      counter.updates += 1;
      return new Promise((resolve) => {
        clock.after(updateMs, () => {
          counter.seq += update.$inc.seq;
          resolve({ _id: LINK_ID_COUNTER, seq: counter.seq });
        });
      });
    },
  } as unknown as Collection<CounterDocument>;
  return { counter, collection };
}

export async function simulateFleet(settings: FleetSettings): Promise<FleetResult> {
  const { processes, createsPerSecond, seconds, updateMs } = settings;
  const clock = new VirtualClock();
  const { counter, collection } = sharedCounter(clock, updateMs);
  const fleet = Array.from(
    { length: processes },
    () => new MongoIdSequence(collection, settings.blockSize),
  );
  const total = Math.round(createsPerSecond * seconds);
  const intervalMs = 1000 / createsPerSecond;
  const handedOut = new Float64Array(total);
  const lastId = new Float64Array(processes);
  const asked = new Float64Array(processes);
  const answered = new Float64Array(processes);
  let got = 0;
  let waited = 0;
  let increasingPerProcess = true;

  for (let k = 0; k < total; k += 1) {
    const time = k * intervalMs;
    if (clock.dueBy(time)) await clock.advanceTo(time);
    clock.now = time;
    const p = k % processes;
    const sequence = fleet[p]!;
    if (sequence.available === 0) waited += 1;
    const turn = asked[p]!;
    asked[p] = turn + 1;
    void sequence.next().then((id) => {
      if (answered[p] !== turn || id <= lastId[p]!) increasingPerProcess = false;
      answered[p] = turn + 1;
      lastId[p] = id;
      handedOut[got] = id;
      got += 1;
    });
    // Lets the answers of ids in hand run now and then (they are already settled).
    if (k % 1000 === 999) await Promise.resolve();
  }
  while (!clock.idle) await clock.advanceTo(clock.now + updateMs);
  await new Promise((resolve) => setImmediate(resolve));

  const ids = handedOut.subarray(0, got).sort();
  let unique = got === total;
  for (let i = 1; i < ids.length && unique; i += 1) unique = ids[i] !== ids[i - 1];
  return {
    processes,
    seconds,
    ids: got,
    counterUpdates: counter.updates,
    waited,
    unused: fleet.reduce((sum, sequence) => sum + sequence.available, 0),
    unique,
    increasingPerProcess,
  };
}

/** The README's table: one row per fleet. */
export function fleetTable(results: FleetResult[]): string[][] {
  const header = [
    'processes (P)',
    'simulated seconds',
    'ids',
    'counter updates',
    'updates per id',
    'creates that waited for a block',
  ];
  const rows = results.map((r) => [
    String(r.processes),
    String(r.seconds),
    r.ids.toLocaleString('en-US'),
    r.counterUpdates.toLocaleString('en-US'),
    `1 per ${Math.floor(r.ids / r.counterUpdates).toLocaleString('en-US')}`,
    r.waited.toLocaleString('en-US'),
  ]);
  return [header, ...rows];
}
