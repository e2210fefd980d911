import { hashSecret, MIN_CHOSEN_SECRET_LENGTH, SECRET_HASH_PATTERN } from '../auth/secrets';
import { MAX_ID_LENGTH } from '../ports/identity-store';
import { ProvisioningError } from './provisioning-error';

/**
 * The checks of what a provisioning command is given. They run on values, not only on types: an
 * embedder in plain JavaScript reaches them too.
 */

/** What a link domain must look like, said with every refusal of one. */
export const LINK_DOMAIN_FORM =
  'give a host name (no empty label, at most 253 characters) or an IP address, with a port from 1 to 65535 when not the default, and nothing else (no scheme, path or credentials)';

/** An id trimmed, refused when not a string, empty or longer than MAX_ID_LENGTH. */
export function requireId(value: string, what: string): string {
  if (typeof value !== 'string') throw new ProvisioningError(`${what} id must be a string`);
  const id = value.trim();
  if (id === '') throw new ProvisioningError(`${what} id must not be empty`);
  if (id.length > MAX_ID_LENGTH) {
    throw new ProvisioningError(`${what} id must have at most ${MAX_ID_LENGTH} characters`);
  }
  return id;
}

/**
 * An organization's active flag: from plain JavaScript `'false'` would be stored, and read as true
 * (the organization kept creating links).
 */
export function activeFlag(id: string, active: unknown): boolean {
  if (typeof active === 'boolean') return active;
  throw new ProvisioningError(
    `organization "${id}": active must be true or false, not ${JSON.stringify(active)}`,
  );
}

export function isListOfIds(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((id) => typeof id === 'string');
}

/**
 * A secret given as its hash, given in clear, or generated — then returned (once) to the caller.
 * A given one is held to the seed file's rules: a chosen secret of at least
 * MIN_CHOSEN_SECRET_LENGTH characters, a hash of 64 hex digits. `what` names it in the refusal,
 * which never repeats the secret.
 */
export function secretHash(
  what: string,
  clear: string | undefined,
  hash: string | undefined,
  generate: () => string,
): { hash: string; generated?: string } {
  if (hash !== undefined) {
    if (typeof hash !== 'string' || !SECRET_HASH_PATTERN.test(hash)) {
      throw new ProvisioningError(
        `${what}: its hash must be a SHA-256 in 64 lower-case hex digits`,
      );
    }
    return { hash };
  }
  if (clear !== undefined) {
    if (typeof clear !== 'string' || clear.length < MIN_CHOSEN_SECRET_LENGTH) {
      throw new ProvisioningError(
        `${what}: a chosen secret must have at least ${MIN_CHOSEN_SECRET_LENGTH} characters`,
      );
    }
    return { hash: hashSecret(clear) };
  }
  const generated = generate();
  return { hash: hashSecret(generated), generated };
}
