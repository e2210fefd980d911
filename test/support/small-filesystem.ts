import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Small tmpfs mounts for the storage failure tests: a read-only file system (root ignores file
 * modes, so a chmod cannot make a directory unwritable for it) and a full disk. Mounting needs
 * root (CAP_SYS_ADMIN); `mountSupport()` says whether this machine allows it and why not.
 */
export function mountSupport(): { available: true } | { available: false; reason: string } {
  if (process.platform !== 'linux') return { available: false, reason: 'not Linux' };
  if (process.getuid?.() !== 0) return { available: false, reason: 'not running as root' };
  try {
    execFileSync('mount', ['--version'], { stdio: 'ignore' });
  } catch {
    return { available: false, reason: 'no mount command' };
  }
  return { available: true };
}

export interface SmallFilesystem {
  dir: string;
  unmount(): void;
}

/** Mounts a tmpfs of `sizeKb` on `dir` (created), read-only when asked. */
export async function mountTmpfs(
  dir: string,
  options: { sizeKb: number; readOnly?: boolean },
): Promise<SmallFilesystem> {
  await mkdir(dir, { recursive: true });
  const flags = [`size=${options.sizeKb}k`, 'mode=0755', ...(options.readOnly ? ['ro'] : [])];
  execFileSync('mount', ['-t', 'tmpfs', '-o', flags.join(','), 'tmpfs', dir]);
  return { dir, unmount: () => execFileSync('umount', ['-l', dir]) };
}

/** Fills the file system holding `dir` until it refuses more bytes (ENOSPC). */
export async function fillUp(dir: string): Promise<void> {
  const chunk = Buffer.alloc(4096, 1);
  const filler = join(dir, 'filler');
  for (let i = 0; ; i += 1) {
    try {
      await writeFile(filler, chunk, { flag: 'a' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return;
      throw error;
    }
    if (i > 1_000_000) throw new Error(`${dir} never filled up`);
  }
}
