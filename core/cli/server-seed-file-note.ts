import { readFile } from 'node:fs/promises';

/*
 * What an admin command run on the store adds to its output when SHORTLINK_SEED_FILE names the
 * server's seed file. The server applies that file at every start, and a field the file declares
 * wins over the store then (a field it leaves out keeps what the store holds): a change the CLI
 * made to such a field is undone at the next start unless the file says the same.
 */

/**
 * After `org activate` or `org deactivate` of `organizationId` in the store: a note when the
 * server's seed file declares the organization's `active` otherwise (undefined when it does not,
 * or cannot be read: the server then refuses it at its start, or it names no such field).
 */
export async function seedFileActiveNote(
  seedFile: string,
  organizationId: string,
  active: boolean,
): Promise<string | undefined> {
  const declared = await declaredActive(seedFile, organizationId);
  if (declared === undefined || declared === active) return undefined;
  return `the seed file ${seedFile} declares organization ${organizationId} "active": ${String(declared)}, and the server applies it at every start: its next start makes ${organizationId} ${declared ? 'active' : 'inactive'} again. Set "active": ${String(active)} there (or take "active" out: the store's value then stays) to keep this change`;
}

/** The `active` the seed file gives the organization, if it gives one. */
async function declaredActive(
  seedFile: string,
  organizationId: string,
): Promise<boolean | undefined> {
  let seed: unknown;
  try {
    seed = JSON.parse(await readFile(seedFile, 'utf8'));
  } catch {
    return undefined;
  }
  const organizations = (seed as { organizations?: unknown } | null)?.organizations;
  if (!Array.isArray(organizations)) return undefined;
  const entry: unknown = organizations.find(
    (organization: unknown) => (organization as { id?: unknown } | null)?.id === organizationId,
  );
  const active = (entry as { active?: unknown } | undefined)?.active;
  return typeof active === 'boolean' ? active : undefined;
}
