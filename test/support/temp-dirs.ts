import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Temporary directories for one test file, all removed by `removeAll` (call it in afterAll). */
export function tempDirs(prefix: string): { make(): Promise<string>; removeAll(): Promise<void> } {
  const made: string[] = [];
  return {
    make: async () => {
      const dir = await mkdtemp(join(tmpdir(), `shortlink-${prefix}-`));
      made.push(dir);
      return dir;
    },
    removeAll: async () => {
      await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}
