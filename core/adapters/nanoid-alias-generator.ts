import { customAlphabet } from 'nanoid';
import type { AliasGenerator } from '../ports/alias-generator';

export const GENERATED_ALIAS_ALPHABET =
  '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const GENERATED_ALIAS_LENGTH = 7;

/** 7 characters of [0-9A-Za-z] from nanoid's cryptographically random generator. */
export function createNanoidAliasGenerator(length = GENERATED_ALIAS_LENGTH): AliasGenerator {
  const generate = customAlphabet(GENERATED_ALIAS_ALPHABET, length);
  return { generate: () => generate() };
}
