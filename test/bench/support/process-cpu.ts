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

/** CPU ms used so far by each process `pid` started, with its own children (a cluster's workers). */
function childrenCpuMs(pid: number): Map<number, number> {
  const children = new Map<number, number>();
  for (const child of childPids(pid)) {
    const ms = processTreeCpuMs(child);
    if (ms !== null) children.set(child, ms);
  }
  return children;
}

/**
 * One reading of server `pid`: its whole tree's CPU ms (as processTreeCpuMs) and each child's, from
 * one pass over /proc.
 */
function readServerCpu(pid: number | undefined) {
  const own = processCpuMs(pid);
  if (own === null || pid === undefined) return { total: own, children: new Map<number, number>() };
  const children = childrenCpuMs(pid);
  let total = own;
  for (const ms of children.values()) total += ms;
  return { total, children };
}

/**
 * The busiest child's share of the CPU the children of a server spent between two readings
 * (children present in both): 0.5 when two workers shared the work evenly, 1 when one did it all;
 * null with fewer than two children (one process, no cluster).
 */
function busiestShare(before: Map<number, number>, after: Map<number, number>): number | null {
  const spent = [...after].flatMap(([pid, ms]) => {
    const start = before.get(pid);
    return start === undefined ? [] : [ms - start];
  });
  const total = spent.reduce((sum, ms) => sum + ms, 0);
  return spent.length < 2 || total <= 0 ? null : Math.max(...spent) / total;
}

/**
 * Runs `work` and adds the CPU ms per request the server `pid` (with any processes it started)
 * spent meanwhile, and, for a cluster, the busiest worker's share of the workers' CPU (how the
 * kernel split the connections between them).
 */
export async function withServerCpu<T extends { requests: number }>(
  pid: number | undefined,
  work: () => Promise<T>,
): Promise<T & { serverCpuMsPerRequest: number | null; busiestWorkerShare: number | null }> {
  const before = readServerCpu(pid);
  const result = await work();
  const after = readServerCpu(pid);
  const perRequest =
    before.total !== null && after.total !== null && result.requests > 0
      ? (after.total - before.total) / result.requests
      : null;
  return {
    ...result,
    serverCpuMsPerRequest: perRequest,
    busiestWorkerShare: busiestShare(before.children, after.children),
  };
}
