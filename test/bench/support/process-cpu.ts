import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux everywhere in practice). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, ms) used so far by process `pid`, from /proc; null where there is no
 * /proc. CPU per request is steadier than requests per second on a machine shared with other
 * work, so each round reports both.
 */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}

/** The pids of the processes `pid` started (every thread's children), from /proc. */
function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
        .split(' ')
        .filter((field) => field.trim() !== '')
        .map(Number),
    );
  } catch {
    return [];
  }
}

/**
 * CPU time (ms) used so far by process `pid` and every process below it: a WORKERS cluster's
 * primary and its workers count as one server. A worker that exited meanwhile is not counted.
 */
export function processTreeCpuMs(pid: number | undefined): number | null {
  const own = processCpuMs(pid);
  if (own === null || pid === undefined) return own;
  return childPids(pid).reduce((total, child) => total + (processTreeCpuMs(child) ?? 0), own);
}

/**
 * Runs `work` and adds the CPU ms per request the server `pid` (with any processes it started)
 * spent meanwhile.
 */
export async function withServerCpu<T extends { requests: number }>(
  pid: number | undefined,
  work: () => Promise<T>,
): Promise<T & { serverCpuMsPerRequest: number | null }> {
  const before = processTreeCpuMs(pid);
  const result = await work();
  const after = processTreeCpuMs(pid);
  const perRequest =
    before !== null && after !== null && result.requests > 0
      ? (after - before) / result.requests
      : null;
  return { ...result, serverCpuMsPerRequest: perRequest };
}
