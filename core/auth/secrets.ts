import { hash } from 'node:crypto';
import { customAlphabet } from 'nanoid';
import { BASE62_ALPHABET } from '../base62';

/** Recognisable prefixes so secret scanners can find leaked credentials. */
const TOKEN_PREFIX = 'slpat_';
const ORGANIZATION_KEY_PREFIX = 'slorg_';
/**
 * The shortest secret a person may choose (seed file): guessing must stay hopeless even for a
 * chosen secret, and at 24 characters even a lower-case-and-digits one carries over 120 bits.
 * Generated secrets have 40 random characters after their prefix.
 */
export const MIN_CHOSEN_SECRET_LENGTH = 24;

/** What hashSecret writes, and what a secret given as its hash must be: SHA-256, lower-case hex. */
export const SECRET_HASH_PATTERN = /^[0-9a-f]{64}$/;

const randomPart = customAlphabet(BASE62_ALPHABET, 40);

/**
 * SHA-256, hex: the only form in which tokens and organization keys are stored. Every request
 * hashes its token and organization key; the one-shot crypto.hash costs a quarter of a
 * createHash object (0.3 against 1.25 µs, Node 20).
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function generateToken(): string {
  return TOKEN_PREFIX + randomPart();
}

export function generateOrganizationKey(): string {
  return ORGANIZATION_KEY_PREFIX + randomPart();
}
