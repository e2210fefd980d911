import { createHash } from 'node:crypto';
import { customAlphabet } from 'nanoid';

/** Recognisable prefixes so secret scanners can find leaked credentials. */
export const TOKEN_PREFIX = 'slpat_';
export const ORGANIZATION_KEY_PREFIX = 'slorg_';
/**
 * The shortest secret a person may choose (seed file): guessing must stay hopeless even for a
 * chosen secret, and at 24 characters even a lower-case-and-digits one carries over 120 bits.
 * Generated secrets have 40 random characters after their prefix.
 */
export const MIN_CHOSEN_SECRET_LENGTH = 24;

const randomPart = customAlphabet(
  '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
  40,
);

/** SHA-256, hex: the only form in which tokens and organization keys are stored. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function generateToken(): string {
  return TOKEN_PREFIX + randomPart();
}

export function generateOrganizationKey(): string {
  return ORGANIZATION_KEY_PREFIX + randomPart();
}
