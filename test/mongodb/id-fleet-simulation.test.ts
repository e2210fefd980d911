import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fleetTable, simulateFleet, type FleetResult } from './id-fleet-simulation';

/**
 * The id blocks at fleet scale, simulated: 10,000 creates a second spread over P processes, each
 * with its own allocator (MongoIdSequence, default ID_BLOCK_SIZE) over one fake counter document
 * whose every update takes 3 simulated milliseconds; each fleet runs long enough for every
 * process to take 1,200 ids or more (its first block, and the next one fetched ahead). The
 * MongoDB README shows the table this run measures; this test fails, printing the table, when
 * the README's differs.
 */
const FLEETS = [1, 10, 100, 1000];
const CREATES_PER_SECOND = 10_000;
const secondsFor = (processes: number) => Math.max(12, (processes * 1200) / CREATES_PER_SECOND);
const README = resolve(__dirname, '../../core/adapters/mongodb/README.md');

// CPU-bound (1.2 million ids at P = 1000): seconds alone, minutes on a loaded machine.
jest.setTimeout(600_000);

let results: FleetResult[];

beforeAll(async () => {
  results = [];
  for (const processes of FLEETS) {
    const seconds = secondsFor(processes);
    results.push(
      await simulateFleet({
        processes,
        createsPerSecond: CREATES_PER_SECOND,
        seconds,
        updateMs: 3,
      }),
    );
  }
});

describe('id blocks in a simulated fleet (10,000 creates/s, counter updates of 3 ms)', () => {
  it.each(FLEETS.map((processes, i) => ({ processes, i })))(
    'P = $processes: every create gets an id, unique, increasing per process',
    ({ processes, i }) => {
      const result = results[i]!;
      expect(result.ids).toBe(CREATES_PER_SECOND * secondsFor(processes));
      expect(result.unique).toBe(true);
      expect(result.increasingPerProcess).toBe(true);
    },
  );

  it.each(FLEETS.map((processes, i) => ({ processes, i })))(
    'P = $processes: at most one counter update per 500 ids',
    ({ i }) => {
      const result = results[i]!;
      expect(result.counterUpdates * 500).toBeLessThanOrEqual(result.ids);
    },
  );

  it.each(FLEETS.map((processes, i) => ({ processes, i })))(
    'P = $processes: only creates before their process’s first block arrived waited',
    ({ processes, i }) => {
      const result = results[i]!;
      // The first block takes 3 ms; a process receives a create every P / 10 ms.
      expect(result.waited).toBe(processes * Math.ceil(3 / (processes / 10)));
      // Stopping at the end would leave at most a block and a tenth per process unused.
      expect(result.unused).toBeLessThanOrEqual(processes * 1100);
    },
  );

  it('matches the table in the MongoDB README', () => {
    const measured = fleetTable(results);
    const readme = readFileSync(README, 'utf8');
    const cells = (line: string) =>
      line
        .trim()
        .replace(/^\||\|$/g, '')
        .split('|')
        .map((cell) => cell.trim());
    const lines = readme.split('\n');
    const start = lines.findIndex((line) => line.startsWith(`| ${measured[0]![0]} `));
    const shown = lines
      .slice(start)
      .filter((line, n) => n !== 1)
      .slice(0, measured.length)
      .map(cells);
    const expected = measured.map((row) => `| ${row.join(' | ')} |`).join('\n');
    if (JSON.stringify(shown) !== JSON.stringify(measured)) {
      throw new Error(
        `the README's table differs from the simulation; it should read:\n${expected}`,
      );
    }
  });
});
