import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { checkOwnerOnly } from '../adapters/lmdb/data-dir';
import { LMDB_DATA_FILE } from '../adapters/lmdb/lmdb-store';
import { createMemoryStore, type MemoryStore } from '../adapters/memory/memory-store';
import { systemClock } from '../adapters/system-clock';
import { silentLogger } from '../ports/logger';
import type { Store } from '../ports/store';
import { Provisioner } from '../provisioning/provisioner';
import { NotFoundProvisioningError, ProvisioningError } from '../provisioning/provisioning-error';
import { seedFromSnapshot } from '../provisioning/seed-export';
import { loadSeedFile } from '../provisioning/seed-file';
import { lockSeedFile } from '../provisioning/seed-file-lock';
import { writeSeedFile } from '../provisioning/seed-file-writer';
import { IN_MEMORY_DATA_DIR, storeKindOf, type Config } from '../runtime/config';
import { createStoreFromConfig } from '../runtime/store-from-config';

/** Where an admin command writes: the configured store, or a seed file. */
export interface AdminTarget {
  store: Store;
  provisioner: Provisioner;
  /** Saves what the command changed, when the target needs it; the line to print. */
  save(): Promise<string | undefined>;
  close(): Promise<void>;
}

/**
 * Whether admin commands work on a seed file: only when the command line names one
 * (`--seed-file`). SHORTLINK_SEED_FILE is the server's setting, not a target: the CLI run in the
 * server's own environment (a container, a systemd unit), where it is set beside DATA_DIR or
 * MONGODB_URI, must change what the running server reads, its store.
 */
export const targetsSeedFile = (seedFile: string | undefined): seedFile is string =>
  seedFile !== undefined;

/**
 * The seed file `--seed-file` names (applied at every start of a server); else MongoDB with
 * MONGODB_URI; else LMDB in DATA_DIR. Each is safe to write while the server runs. With
 * DATA_DIR=:memory: there is nothing lasting to write to, which is an error.
 */
export async function openAdminTarget(
  config: Config,
  seedFile: string | undefined,
  command?: (provisioner: Provisioner) => Promise<unknown>,
): Promise<AdminTarget> {
  if (targetsSeedFile(seedFile)) return seedFileTarget(seedFile);
  refuseMemoryStore(config);
  if (storeKindOf(config) === 'lmdb') await refuseSharedDataDir(config.DATA_DIR);
  // Opening a DATA_DIR that holds no store creates one. The command (when given) is first run
  // on an empty store in memory, so one that fails there (a mistyped DATA_DIR: "no user ...")
  // fails before anything is created; its secrets, if any, are never shown.
  if (command && storeKindOf(config) === 'lmdb' && holdsNoStore(config.DATA_DIR)) {
    const empty = createMemoryStore();
    try {
      await command(new Provisioner(empty, systemClock));
    } catch (error) {
      // The directory is named only when it can be the cause: a record the command names is not
      // there. A missing option or a bad domain is refused as it is.
      if (!(error instanceof NotFoundProvisioningError)) throw error;
      throw new ProvisioningError(
        `${error.message} (DATA_DIR ${resolve(config.DATA_DIR)} holds no store yet; nothing was created)`,
      );
    } finally {
      await empty.close();
    }
  }
  // An older server may still run on the directory: its format stays (LmdbStoreOptions.migrate).
  const store = await createStoreFromConfig(config, silentLogger, { migrate: false });
  return targetOn(store);
}

/**
 * The same targets as openAdminTarget, for a command that only reads (the listings): the store is
 * opened without writing (no directory or database created, no opening time recorded), so a
 * mistyped DATA_DIR is said as such and a backup copy is left as it was; a seed file is read
 * without its lock. Its save() writes nothing.
 */
export async function openAdminReader(
  config: Config,
  seedFile: string | undefined,
): Promise<AdminTarget> {
  if (targetsSeedFile(seedFile)) return seedFileReader(seedFile);
  refuseMemoryStore(config);
  if (storeKindOf(config) === 'lmdb') await refuseSharedDataDir(config.DATA_DIR);
  if (storeKindOf(config) === 'lmdb' && holdsNoStore(config.DATA_DIR)) {
    throw new ProvisioningError(
      `DATA_DIR ${resolve(config.DATA_DIR)} holds no store: nothing to list (nothing was created)`,
    );
  }
  const store = await createStoreFromConfig(config, silentLogger, { readOnly: true });
  return targetOn(store);
}

/**
 * A seed file read without its lock and never written: the file is replaced whole by a rename, so
 * a read sees one version of it, and a listing does not wait for another command.
 */
async function seedFileReader(seedFile: string): Promise<AdminTarget> {
  if (!existsSync(seedFile)) {
    throw new ProvisioningError(`the seed file ${seedFile} does not exist: nothing to list`);
  }
  const store = createMemoryStore();
  await loadSeedFile(new Provisioner(store, systemClock), seedFile);
  return targetOn(store);
}

/**
 * Why the link commands refuse a seed file: links are made by the service and live in its store
 * only; a seed file holds identities.
 */
const LINKS_ON_SEED_FILE_REFUSED =
  "links live in the store only, never in a seed file: run the link commands without --seed-file, with DATA_DIR (or MONGODB_URI) naming the server's store. Nothing was changed";

/**
 * The store for the link commands: MongoDB with MONGODB_URI, else LMDB in DATA_DIR; never a seed
 * file (links are not in one) and never a new store (a DATA_DIR that holds none has no links: a
 * mistyped path is said as such). `readOnly` for `link show` and `link list`, which write nothing.
 */
export async function openLinkStore(
  config: Config,
  seedFile: string | undefined,
  { readOnly }: { readOnly: boolean },
): Promise<Store> {
  if (targetsSeedFile(seedFile)) throw new ProvisioningError(LINKS_ON_SEED_FILE_REFUSED);
  if (storeKindOf(config) === 'memory') {
    throw new ProvisioningError(
      `DATA_DIR=${IN_MEMORY_DATA_DIR} keeps nothing, links included: set DATA_DIR (or MONGODB_URI) to the server's store`,
    );
  }
  if (storeKindOf(config) === 'lmdb' && holdsNoStore(config.DATA_DIR)) {
    throw new ProvisioningError(
      `DATA_DIR ${resolve(config.DATA_DIR)} holds no store: it has no links (nothing was created)`,
    );
  }
  return createStoreFromConfig(config, silentLogger, readOnly ? { readOnly } : { migrate: false });
}

/** With DATA_DIR=:memory: and no --seed-file there is nothing lasting to read or write. */
function refuseMemoryStore(config: Config): void {
  if (storeKindOf(config) === 'memory') {
    throw new ProvisioningError(
      `DATA_DIR=${IN_MEMORY_DATA_DIR} keeps nothing: set DATA_DIR (or MONGODB_URI), or name a seed file with --seed-file`,
    );
  }
}

/** A target whose writes go to `store` itself: nothing to save afterwards. */
function targetOn(store: Store): AdminTarget {
  return {
    store,
    provisioner: new Provisioner(store, systemClock),
    save: () => Promise.resolve(undefined),
    close: () => store.close(),
  };
}

/**
 * The store's own rule (another user's directory, or one group or others may write, is refused),
 * applied before the CLI looks inside: such a directory may not let this user see its store, which
 * would otherwise be reported as missing.
 */
export function refuseSharedDataDir(dataDir: string): Promise<void> {
  return checkOwnerOnly(resolve(dataDir), { ifPresent: true });
}

/** A data directory with no LMDB store in it, or nothing at all there yet. */
function holdsNoStore(dataDir: string): boolean {
  if (existsSync(join(dataDir, LMDB_DATA_FILE))) return false;
  // Something else in the way (a file) is left for the store's own check to name.
  return !existsSync(dataDir) || statSync(dataDir).isDirectory();
}

async function seedFileTarget(seedFile: string): Promise<AdminTarget> {
  // Checked before the command runs: the atomic write would fail after it, naming its temporary file.
  const folder = dirname(resolve(seedFile));
  if (!existsSync(folder)) {
    throw new ProvisioningError(`the seed file's folder ${folder} does not exist`);
  }
  // Held from the read to the write: two commands at once would each write back what they read
  // plus their own change, and the later write would drop the other's (its secret already shown).
  const lock = await lockSeedFile(seedFile);
  const store: MemoryStore = createMemoryStore();
  const provisioner = new Provisioner(store, systemClock);
  try {
    if (existsSync(seedFile)) await loadSeedFile(provisioner, seedFile);
  } catch (error) {
    await Promise.all([store.close(), lock.release()]);
    throw error;
  }
  return {
    store,
    provisioner,
    save: async () => {
      lock.assertHeld();
      const seed = seedFromSnapshot(store.identities.snapshot());
      await writeSeedFile(seedFile, seed);
      return `seed file ${seedFile} updated (secrets stored as SHA-256 hashes only)`;
    },
    close: async () => {
      await store.close();
      await lock.release();
    },
  };
}
