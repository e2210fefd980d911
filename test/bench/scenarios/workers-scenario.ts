import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../support/free-port';
import { BENCH_RATE_LIMIT_PER_MINUTE } from '../support/bench-runtime';
import { startChild, withChildren } from '../support/child';
import { startEntryPoint, type EntryPoint } from '../support/entry-point';
import { alternate, type Round, type Summary } from '../support/measurement';
import type { BenchSettings } from '../support/settings';
import { httpRound, type HttpLoad } from '../load/http-load';
import { grpcRound } from '../load/grpc-round';
import { CONCURRENCY } from '../support/concurrency';
import { createLinks, createLoad, FOLLOWED_LINKS, followLoad } from './http-scenarios';

type WorkersTarget = 'one' | 'two';

export interface WorkersResults {
  create: Record<WorkersTarget, Summary>;
  follow: Record<WorkersTarget, Summary>;
  grpc: Record<WorkersTarget, Summary>;
}

/**
 * `npm start` with WORKERS=2 against WORKERS=1, both on the LMDB store (each its own DATA_DIR),
 * in alternating rounds. Server CPU is summed over every process of the service (primary and
 * workers); the HTTP load comes from this process, the gRPC load from its own.
 */
export async function runWorkersScenario(
  seedFile: string,
  work: string,
  settings: BenchSettings,
  log: (line: string) => void,
): Promise<WorkersResults> {
  return withChildren(async (keep) => {
    const start = async (workers: number) =>
      keep(
        startEntryPoint(
          {
            WORKERS: String(workers),
            DATA_DIR: mkdtempSync(join(work, `data-workers-${workers}-`)),
            HOST: '127.0.0.1',
            SHORTLINK_SEED_FILE: seedFile,
            RATE_LIMIT_PER_MINUTE: String(BENCH_RATE_LIMIT_PER_MINUTE),
            LOG_LEVEL: 'info',
            // Metrics on, as `npm start` has them; each service on its own port.
            METRICS_PORT: String(await freePort()),
          },
          join(work, `workers-${workers}.log`),
        ),
      );
    const one = await start(1);
    const two = await start(2);
    const grpcLoad = await keep(startChild<object>('load/grpc-load'));

    const report = (scenario: string) => (name: string, index: number, round: Round) =>
      log(
        `workers ${scenario} round ${index + 1} WORKERS=${name === 'one' ? 1 : 2}: ${round.requestsPerSecond.toFixed(0)} req/s, p99 ${round.p99Ms.toFixed(1)} ms, server CPU ${round.serverCpuMsPerRequest?.toFixed(3)} ms/req${round.busiestWorkerShare == null ? '' : `, busiest worker ${(round.busiestWorkerShare * 100).toFixed(0)} % of the workers' CPU`}, unexpected ${round.unexpectedStatus}, errors ${round.errors}`,
      );
    const http = (service: EntryPoint, load: HttpLoad) => (seconds: number) =>
      httpRound({ port: service.ready.httpPort, pid: service.process.pid }, load, seconds);
    // One call per connection, as the REST load: with a few connections the kernel's hash could
    // hand them all to one worker (4 of 4, one start in 8), and the row would measure one worker.
    const grpc = (service: EntryPoint) => (seconds: number) =>
      grpcRound(
        grpcLoad,
        { port: service.ready.grpcPort, pid: service.process.pid },
        seconds,
        CONCURRENCY,
      );

    const create = await alternate(
      [
        { name: 'one', run: http(one, createLoad) },
        { name: 'two', run: http(two, createLoad) },
      ],
      settings,
      report('REST create'),
    );
    const oneLinks = await createLinks(one.ready.httpPort, FOLLOWED_LINKS);
    const twoLinks = await createLinks(two.ready.httpPort, FOLLOWED_LINKS);
    const follow = await alternate(
      [
        { name: 'one', run: http(one, followLoad(oneLinks)) },
        { name: 'two', run: http(two, followLoad(twoLinks)) },
      ],
      settings,
      report('follow'),
    );
    const grpcCreate = await alternate(
      [
        { name: 'one', run: grpc(one) },
        { name: 'two', run: grpc(two) },
      ],
      settings,
      report('gRPC create'),
    );
    return { create, follow, grpc: grpcCreate };
  });
}
