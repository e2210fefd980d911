import type { Core } from '../../../core';
import { createBenchRuntime } from '../support/bench-runtime';
import { failChild, tellParent } from '../support/child';
import { CREATE_BODY, CREATE_HEADERS } from '../support/credentials';
import { median } from '../support/measurement';

const IN_FLIGHT = 32;

/** Creates links through `createCaller().links.create` for `seconds`, `IN_FLIGHT` at a time. */
async function callsPerSecond(core: Core, seconds: number): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let calls = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      // A caller per call, as the gateways make one per request.
      const caller = core.createCaller({
        authorization: CREATE_HEADERS.authorization,
        clientAddress: '127.0.0.1',
        response: {},
      });
      await caller.links.create(CREATE_BODY);
      calls += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return calls / ((performance.now() - started) / 1000);
}

/** The core's own ceiling: no transport, the production composition, the given store. */
async function main(): Promise<void> {
  const [seedFile = '', secondsText = '5', roundsText = '3', warmupText = '5', dataDir] =
    process.argv.slice(2);
  const seconds = Number(secondsText);
  const runtime = await createBenchRuntime(seedFile, dataDir);
  await callsPerSecond(runtime.core, Number(warmupText));
  const rounds: number[] = [];
  for (let i = 0; i < Number(roundsText); i += 1) {
    rounds.push(await callsPerSecond(runtime.core, seconds));
  }
  await runtime.close();
  await tellParent({ type: 'result', callsPerSecond: median(rounds), rounds });
}

main().catch(failChild);
