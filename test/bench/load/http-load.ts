import autocannon from 'autocannon';
import { CONCURRENCY } from '../support/concurrency';
import type { Round } from '../support/measurement';
import { withServerCpu } from '../support/process-cpu';

export interface HttpLoad {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** One request per entry, each connection cycling through them. */
  requests: Array<{ path: string; body?: string }>;
  /** The status class every answer must have: 2 (2xx), 3 (3xx) or 4 (4xx: 410 for a disabled link). */
  expectedClass: 2 | 3 | 4;
  /**
   * Replace `[<id>]` in the headers with a new id for every request (a fresh idempotency key).
   * The request is then rebuilt each time, which costs the load generator CPU, so compare only
   * with a load that is rebuilt too.
   */
  idReplacement?: boolean;
}

/** One autocannon run (in this process) against 127.0.0.1:`port`, served by process `pid`. */
export function httpRound(
  server: { port: number; pid: number | undefined },
  load: HttpLoad,
  seconds: number,
): Promise<Round> {
  return withServerCpu(server.pid, () => autocannonRound(server.port, load, seconds));
}

async function autocannonRound(
  port: number,
  load: HttpLoad,
  seconds: number,
): Promise<Omit<Round, 'serverCpuMsPerRequest'>> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONCURRENCY,
    duration: seconds,
    method: load.method,
    headers: load.headers,
    idReplacement: load.idReplacement ?? false,
    requests: load.requests.map((request) => ({
      method: load.method,
      path: request.path,
      ...(request.body !== undefined && { body: request.body }),
    })),
  });
  const expected = result[`${load.expectedClass}xx`];
  const answered = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: answered,
    unexpectedStatus: answered - expected,
    errors: result.errors, // timeouts are counted among the errors
  };
}
