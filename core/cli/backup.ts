import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BackupTargetError } from '../adapters/lmdb/backup-target';
import { createLmdbStore, LMDB_DATA_FILE } from '../adapters/lmdb/lmdb-store';
import { ProvisioningError } from '../provisioning/provisioning-error';
import { IN_MEMORY_DATA_DIR, type Config } from '../runtime/config';
import { refuseSharedDataDir } from './admin-store';

/**
 * `admin backup DIR`: a consistent, compacted copy of the LMDB store in DATA_DIR, taken from one
 * read snapshot, so the server may keep writing meanwhile. The copy is itself a DATA_DIR.
 */
export async function runBackup(config: Config, targetDir: string): Promise<string> {
  if (targetDir.trim() === '') throw new ProvisioningError('backup needs a target directory');
  if (config.MONGODB_URI) {
    throw new ProvisioningError('backup copies the LMDB store; back MongoDB up with its own tools');
  }
  if (config.DATA_DIR === IN_MEMORY_DATA_DIR) {
    throw new ProvisioningError(`DATA_DIR=${IN_MEMORY_DATA_DIR} holds nothing to back up`);
  }
  await refuseSharedDataDir(config.DATA_DIR);
  // Opening a missing store would create an empty one and back that up.
  if (!existsSync(join(config.DATA_DIR, LMDB_DATA_FILE))) {
    throw new ProvisioningError(`DATA_DIR ${resolve(config.DATA_DIR)} holds no LMDB store`);
  }
  // Opened to read only: the source is not written (it may be on a read-only or full disk), and
  // the copy keeps its format, so a backup taken before an upgrade can go back with it.
  const store = await createLmdbStore({ dataDir: config.DATA_DIR, readOnly: true });
  try {
    const target = await store.backup(targetDir).catch((error: unknown) => {
      // A target in the way is the person's to correct: exit status 2, not 1.
      if (error instanceof BackupTargetError) throw new ProvisioningError(error.message);
      throw error;
    });
    return `backup of ${store.path} written to ${target} (start with DATA_DIR=${target} to use it)`;
  } finally {
    await store.close();
  }
}
