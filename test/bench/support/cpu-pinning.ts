import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * taskset --all-tasks walks the process's threads one by one and fails when one ends before it
 * is reached (Node starts and ends helper threads); a few attempts get past that race.
 */
const PIN_ATTEMPTS = 5;

/**
 * Runs every thread of process `pid` on the CPUs of `cpuList` (taskset's list syntax, "1" or
 * "0-1"). Returns false where that cannot be done (no taskset, one CPU).
 */
export function pinProcess(pid: number | undefined, cpuList: string): boolean {
  if (pid === undefined || availableParallelism() < 2) return false;
  for (let attempt = 1; attempt <= PIN_ATTEMPTS; attempt += 1) {
    try {
      execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cpuList, String(pid)], {
        stdio: 'ignore',
      });
      return true;
    } catch (error) {
      // No taskset at all: no attempt can succeed.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    }
  }
  return false;
}

/**
 * The CPUs process `pid` may run on, in taskset's list syntax, to put it back after pinning;
 * null where that cannot be read (no taskset, one CPU).
 */
export function cpusOf(pid: number): string | null {
  if (availableParallelism() < 2) return null;
  try {
    // "pid 123's current affinity list: 0,1"
    const answer = execFileSync('taskset', ['--cpu-list', '--pid', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return answer.slice(answer.lastIndexOf(':') + 1).trim() || null;
  } catch {
    return null;
  }
}
