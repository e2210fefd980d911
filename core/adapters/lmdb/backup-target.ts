import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { systemErrorCode } from '../../errors/system-error-code';
import { sharedProblem } from './owner-only';

/** The folder inside a backup target that a copy is written to before it is moved into place. */
export const BACKUP_IN_PROGRESS = '.backup-in-progress';

/** A backup target the store will not write into; the message says what is in the way. */
export class BackupTargetError extends Error {
  override readonly name = 'BackupTargetError';
}

/**
 * The absolute backup target, once it is known to be a missing or empty folder outside the
 * data directory, that no other user may change (owner-only.ts); otherwise a BackupTargetError
 * saying what is actually in the way.
 */
export async function checkBackupTarget(targetDir: string, dataDir: string): Promise<string> {
  const target = resolve(targetDir);
  // Compared as the file system resolves them, so a symlink into the data directory counts.
  const data = await realpath(dataDir).catch(() => resolve(dataDir));
  const real = await realTarget(target);
  if (real === data) {
    throw new BackupTargetError(`the backup target ${target} is the data directory itself`);
  }
  // A copy inside the store's own folder goes with it: removed by an `rm -rf` of the data
  // directory (how a fresh start is made), lost with its disk.
  const inside = relative(data, real);
  if (inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside)) {
    throw new BackupTargetError(
      `the backup target ${target} is inside the data directory ${data}; a backup there is removed with it: choose a folder outside it`,
    );
  }
  let entries: string[];
  try {
    entries = await readdir(target);
  } catch (error) {
    const code = systemErrorCode(error);
    // Missing folders, the target's parents included, are created by the backup.
    if (code === 'ENOENT') return target;
    if (code === 'ENOTDIR') {
      throw new BackupTargetError(
        `the backup target ${target} cannot be a folder: ${await firstFileOn(target)} is a file, not a folder`,
      );
    }
    throw new BackupTargetError(
      `the backup target ${target} cannot be read: ${(error as Error).message}`,
    );
  }
  if (entries.length === 1 && entries[0] === BACKUP_IN_PROGRESS) {
    throw new BackupTargetError(
      `the backup target ${target} holds ${BACKUP_IN_PROGRESS}, left by a backup that did not finish: delete that folder and try again`,
    );
  }
  if (entries.length > 0) {
    throw new BackupTargetError(`the backup target ${target} exists and is not empty`);
  }
  // The copy is a data directory: one that another user may change is refused, as DATA_DIR is.
  const problem = sharedProblem(
    `the backup target ${target}`,
    target,
    await stat(target),
    'directory',
  );
  if (problem !== undefined) throw new BackupTargetError(problem);
  return target;
}

/** `target` with its nearest existing ancestor's symlinks resolved (the rest need not exist). */
async function realTarget(target: string): Promise<string> {
  const missing: string[] = [];
  for (let part = target; ; part = dirname(part)) {
    const real = await realpath(part).catch(() => undefined);
    if (real !== undefined) return join(real, ...missing);
    if (part === dirname(part)) return target;
    missing.unshift(basename(part));
  }
}

/** The part of `path` nearest the root that exists and is not a folder (readdir said ENOTDIR). */
async function firstFileOn(path: string): Promise<string> {
  const parts: string[] = [];
  for (let part = path; part !== dirname(part); part = dirname(part)) parts.unshift(part);
  for (const part of parts) {
    const found = await stat(part).catch(() => undefined);
    if (found && !found.isDirectory()) return part;
  }
  return path;
}
