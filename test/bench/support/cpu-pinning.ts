import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

/**
 * CPUs of the machine. Not os.availableParallelism(): that counts the CPUs this process may run
 * on, which is 1 once it is pinned, and the restore after a pinned pair was then skipped (the
 * load generator, and every process it started later, stayed on one CPU).
 */
const machineCpus = (): number => cpus().length;

/**
 * Runs every thread of process `pid` on the CPUs of `cpuList` (taskset's list syntax, "1" or
 * "0-1"). Returns false where that cannot be done (no taskset, one CPU, or taskset failed;
 * `onFailure` then gets taskset's complaint).
 */
export function pinProcess(
  pid: number | undefined,
  cpuList: string,
  onFailure: (reason: string) => void = () => undefined,
): boolean {
  if (pid === undefined || machineCpus() < 2) return false;
  try {
    execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cpuList, String(pid)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return true;
  } catch (error) {
    const reason = String((error as { stderr?: unknown }).stderr ?? error).trim();
    onFailure(`taskset --pid ${cpuList} ${pid} failed: ${reason}`);
    return false;
  }
}

/**
 * The CPUs process `pid` may run on, in taskset's list syntax, to put it back after pinning;
 * null where that cannot be read (no taskset, one CPU).
 */
export function cpusOf(pid: number): string | null {
  if (machineCpus() < 2) return null;
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
