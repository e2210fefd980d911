import type { Stats } from 'node:fs';

/**
 * Who may touch the store's files, as PostgreSQL has it for its data directory. The store holds
 * token and organization-key hashes: anyone who can write its directory or files can plant a
 * token of their own (or replace `data.mdb` whole), so a directory or file that another user owns,
 * or that group or others may write, is refused rather than used. Files are made 0600 and
 * directories 0700; a directory others may only read and enter (0750, 0755) is accepted, since
 * the files in it are 0600.
 */

/** Mode of the files the store makes: `data.mdb`, `lock.mdb`, a backup's `data.mdb`. */
export const PRIVATE_FILE_MODE = 0o600;

/** Write permission for group or others. */
const SHARED_WRITE = 0o022;

/** Whether this system has Unix owners and modes to check (not Windows). */
const checksOwners = process.platform !== 'win32' && typeof process.geteuid === 'function';

/** The user this process runs as; the only owner its store may have. */
function processUid(): number | undefined {
  return checksOwners ? process.geteuid?.() : undefined;
}

/**
 * Why `path` (with `stats` from stat) must not be used, with the command that fixes it; undefined
 * when it is fine. `what` names it in the message ("DATA_DIR /srv/data", "the data.mdb in ...").
 */
export function sharedProblem(
  what: string,
  path: string,
  stats: Stats,
  kind: 'directory' | 'file',
): string | undefined {
  const uid = processUid();
  if (uid === undefined) return undefined;
  if (stats.uid !== uid) {
    const chown = kind === 'directory' ? `chown -R ${uid}` : `chown ${uid}`;
    return (
      `${what} is owned by another user (uid ${stats.uid}), not by the user running this ` +
      `process (uid ${uid}): run as that user, or make it this user's (${chown} ${path})`
    );
  }
  if ((stats.mode & SHARED_WRITE) !== 0) {
    return (
      `${what} is writable by ${writers(stats.mode)} (mode ${modeText(stats.mode)}), who could ` +
      `change the store under it: chmod ${kind === 'directory' ? '700' : '600'} ${path}`
    );
  }
  return undefined;
}

/** Whether a file's mode lets anyone but its owner read it (a file made 0644 by an older release). */
export function readableByOthers(stats: Stats): boolean {
  return checksOwners && (stats.mode & 0o077) !== 0;
}

function writers(mode: number): string {
  if ((mode & 0o020) !== 0 && (mode & 0o002) !== 0) return 'its group and others';
  return (mode & 0o020) !== 0 ? 'its group' : 'others';
}

function modeText(mode: number): string {
  return `0${(mode & 0o7777).toString(8).padStart(3, '0')}`;
}
