import { ask, type BenchChild } from '../support/child';
import type { Round } from '../support/measurement';
import { withServerCpu } from '../support/process-cpu';

/** What the gRPC load generator (`load/grpc-load`) is asked: a round, or to stop. */
export type GrpcLoadMessage = {
  type?: string;
  address?: string;
  seconds?: number;
  /** Connections to spread the calls over (the generator's CONNECTIONS unless given). */
  connections?: number;
};

/**
 * One round of the gRPC load generator `load` (a child started from `load/grpc-load`) against
 * 127.0.0.1:`port`, served by process `pid`; the gRPC twin of `httpRound`.
 */
export function grpcRound(
  load: BenchChild<unknown>,
  server: { port: number | null; pid: number | undefined },
  seconds: number,
  connections?: number,
): Promise<Round> {
  const message: GrpcLoadMessage = {
    type: 'run',
    address: `127.0.0.1:${server.port}`,
    seconds,
    ...(connections !== undefined && { connections }),
  };
  return withServerCpu(server.pid, () => ask<Omit<Round, 'serverCpuMsPerRequest'>>(load, message));
}
