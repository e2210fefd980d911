import { IN_MEMORY_DATA_DIR } from '../../../core/runtime';
import { grpcRound } from '../load/grpc-round';
import { startChild, type BenchChild, withChildren } from '../support/child';
import { alternate, type Summary } from '../support/measurement';
import type { BenchSettings } from '../support/settings';
import { startSubject } from './http-scenarios';

export interface GrpcResults {
  baseline: Summary;
  /** On the default store (LMDB). */
  subject: Summary;
  /** On DATA_DIR=:memory:. */
  subjectMemory: Summary;
}

interface GrpcReady {
  grpcPort: number | null;
}

/**
 * gRPC CreateShortLink on the service (started as `npm start` composes it) against a bare
 * grpc-js echo of the same messages; the load comes from a third process. Null when this build
 * of the service serves no gRPC.
 */
export async function runGrpcScenario(
  seedFile: string,
  settings: BenchSettings,
  log: (line: string) => void,
  newDataDir: () => string,
): Promise<GrpcResults | null> {
  return withChildren(async (keep) => {
    const subject = await keep(startSubject(seedFile, settings, 'info', newDataDir()));
    const subjectMemory = await keep(startSubject(seedFile, settings, 'info', IN_MEMORY_DATA_DIR));
    if (subject.ready.grpcPort === null) return null;
    const baseline = await keep(startChild<GrpcReady>('servers/bare-grpc'));
    const load = await keep(startChild<object>('load/grpc-load'));

    const on = (server: BenchChild<GrpcReady>) => (seconds: number) =>
      grpcRound(load, { port: server.ready.grpcPort, pid: server.process.pid }, seconds);
    return await alternate(
      [
        { name: 'baseline', run: on(baseline) },
        { name: 'subject', run: on(subject) },
        { name: 'subjectMemory', run: on(subjectMemory) },
      ],
      settings,
      (name, index, round) =>
        log(
          `grpc round ${index + 1} ${name}: ${round.requestsPerSecond.toFixed(0)} calls/s, p50 ${round.p50Ms.toFixed(1)} ms, p99 ${round.p99Ms.toFixed(1)} ms, server CPU ${round.serverCpuMsPerRequest?.toFixed(3)} ms/call, errors ${round.errors}`,
        ),
    );
  });
}
