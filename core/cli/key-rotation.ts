/*
 * What `org rotate-key` adds to its output, by target. A seed file names every organization's key
 * (or its hash) and is applied as an upsert at every start, so a key rotated in the store alone
 * comes back at the next start of a server that applies a seed file listing the organization.
 */

/** After a rotation in the store (DATA_DIR or MONGODB_URI). */
export const rotatedInStore = (organizationId: string, keyHash: string) =>
  `the old key no longer works (a running server may take it for CHANGE_PROPAGATION_SECONDS more). If a server applies a seed file listing organization ${organizationId}, set its secret_key_sha256 there to ${keyHash}, or that server's next start restores the old key`;

/** After a rotation in a seed file: the server takes it when it applies the file. */
export const rotatedInSeedFile = (seedFile: string) =>
  `the server takes the new key when it next applies ${seedFile} (at its next start); until then the old key still works there`;
