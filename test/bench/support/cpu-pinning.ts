import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * Runs every thread of process `pid` on the CPUs of `cpuList` (taskset's list syntax, "1" or
 * "0-1"). Returns false where that cannot be done (no taskset, one CPU).
 */
export function pinProcess(pid: number | undefined, cpuList: string): boolean {
  if (pid === undefined || availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cpuList, String(pid)], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

/** Every CPU of the machine, in taskset's list syntax. */
export function allCpus(): string {
  return `0-${availableParallelism() - 1}`;
}
