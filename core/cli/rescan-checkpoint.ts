import { existsSync, statSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { ProvisioningError } from '../provisioning/provisioning-error';
import type { Config } from '../runtime/config';

/** Where `link rescan` keeps its checkpoint unless --checkpoint names a file. */
const CHECKPOINT_FILE_NAME = 'rescan-checkpoint.json';

/** Written by its owner only, as the seed file: it names organizations and counts their links. */
const CHECKPOINT_MODE = 0o600;

const countsSchema = z.object({
  /** Active links checked against the URL guard. */
  checked: z.number().int().nonnegative(),
  /** Of them, refused by a rule and disabled by the rescan. */
  disabled: z.number().int().nonnegative(),
  /** Of them, passed (kept active). */
  kept: z.number().int().nonnegative(),
  /** Of them, refused without a verdict (the reputation service could not check, fail closed). */
  undecided: z.number().int().nonnegative(),
  /** Links passed over because they were disabled already (not checked). */
  skipped: z.number().int().nonnegative(),
});
export type RescanCounts = z.infer<typeof countsSchema>;

export const noCounts = (): RescanCounts => ({
  checked: 0,
  disabled: 0,
  kept: 0,
  undecided: 0,
  skipped: 0,
});

const checkpointSchema = z.object({
  version: z.literal(1),
  /** The store the rescan reads (DATA_DIR's path, or MongoDB's hosts and database). */
  store: z.string(),
  /** The scope: one organization's links, or (null) every link. */
  organizationId: z.string().nullable(),
  /** Every link of the scope with an id at or above this one is finished; null: none yet. */
  lastId: z.number().int().positive().nullable(),
  counts: countsSchema,
  startedAt: z.string(),
  savedAt: z.string(),
});
export type RescanCheckpoint = z.infer<typeof checkpointSchema>;

/**
 * The checkpoint's file: `--checkpoint FILE`; else `rescan-checkpoint.json` in DATA_DIR on LMDB
 * (beside the store it belongs to), or in the current directory on MongoDB.
 */
export function checkpointPathOf(config: Config, given: string | undefined): string {
  if (given !== undefined) return resolve(given);
  return resolve(config.MONGODB_URI ? '.' : config.DATA_DIR, CHECKPOINT_FILE_NAME);
}

/**
 * The store a checkpoint belongs to, recorded in it so a checkpoint is never applied to another
 * store (which would skip links never checked there). MongoDB's URI is reduced to its hosts and
 * database: the credentials it may hold stay out of the file.
 */
export function storeNameOf(config: Config): string {
  if (!config.MONGODB_URI) return `lmdb:${resolve(config.DATA_DIR)}`;
  const match = /^(mongodb(?:\+srv)?):\/\/(?:[^@/]*@)?([^/?]*)(\/[^?]*)?/.exec(config.MONGODB_URI);
  return match ? `${match[1]}://${match[2]}${match[3] ?? ''}` : 'mongodb';
}

/** The checkpoint in `path`, or null when there is none; a file that is not one is refused. */
export async function readCheckpoint(path: string): Promise<RescanCheckpoint | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = undefined;
  }
  const parsed = checkpointSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ProvisioningError(
      `${path} is not a rescan checkpoint this version can read: move it away (or delete it) to start the rescan over`,
    );
  }
  return parsed.data;
}

/**
 * Fails before any work when the checkpoint could not be read or saved: its folder is missing or
 * is a file, or the path names a directory (`--checkpoint .`), a mistake the person corrects.
 */
export function checkCheckpointFolder(path: string): void {
  const folder = dirname(path);
  if (!existsSync(folder)) {
    throw new ProvisioningError(`the checkpoint's folder ${folder} does not exist`);
  }
  if (!statSync(folder).isDirectory()) {
    throw new ProvisioningError(`the checkpoint's folder ${folder} is not a directory`);
  }
  if (existsSync(path) && statSync(path).isDirectory()) {
    throw new ProvisioningError(
      `the checkpoint ${path} is a directory: give --checkpoint a file's path, such as ${join(path, CHECKPOINT_FILE_NAME)}`,
    );
  }
}

/** Written whole (a temporary file beside it, flushed, renamed over it), mode 0600. */
export async function saveCheckpoint(path: string, checkpoint: RescanCheckpoint): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(checkpoint, null, 2) + '\n', {
    mode: CHECKPOINT_MODE,
  });
}

export async function removeCheckpoint(path: string): Promise<void> {
  await rm(path, { force: true });
}

/** How a scope is said to the operator. */
const scopeText = (organizationId: string | null) =>
  organizationId === null ? 'every link' : `the links of organization "${organizationId}"`;

/**
 * Refuses a checkpoint of another rescan: another store, or another scope (resuming it would
 * skip links this rescan never checked).
 */
export function checkCheckpointFits(
  path: string,
  checkpoint: RescanCheckpoint,
  store: string,
  organizationId: string | null,
): void {
  if (checkpoint.store !== store) {
    throw new ProvisioningError(
      `the checkpoint ${path} belongs to a rescan of another store (${checkpoint.store}): give another --checkpoint, or delete it to start over`,
    );
  }
  if (checkpoint.organizationId !== organizationId) {
    const resume =
      checkpoint.organizationId === null
        ? 'without --org'
        : `with --org ${checkpoint.organizationId}`;
    throw new ProvisioningError(
      `the checkpoint ${path} belongs to an unfinished rescan of ${scopeText(checkpoint.organizationId)}: run it again ${resume} to finish it, or delete the file (or give another --checkpoint) to start this one`,
    );
  }
}
