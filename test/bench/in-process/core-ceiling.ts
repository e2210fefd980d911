import { createBenchRuntime } from '../support/bench-runtime';
import { failChild, tellParent } from '../support/child';
import { createThrough, inFlight } from '../support/in-flight';
import { median } from '../support/measurement';

/** The core's own ceiling: no transport, the production composition, the given store. */
async function main(): Promise<void> {
  const [seedFile = '', secondsText = '5', roundsText = '3', warmupText = '5', dataDir] =
    process.argv.slice(2);
  const seconds = Number(secondsText);
  const runtime = await createBenchRuntime(seedFile, dataDir);
  await inFlight(Number(warmupText), createThrough(runtime.core));
  const rounds: number[] = [];
  for (let i = 0; i < Number(roundsText); i += 1) {
    rounds.push((await inFlight(seconds, createThrough(runtime.core))).callsPerSecond);
  }
  await runtime.close();
  await tellParent({ type: 'result', callsPerSecond: median(rounds), rounds });
}

main().catch(failChild);
