import { customAlphabet } from 'nanoid';
import { BASE62_ALPHABET } from '../base62';
import type { AliasGenerator } from '../ports/alias-generator';

export const GENERATED_ALIAS_LENGTH = 7;

/**
 * `length` (7 unless asked for more) characters of [0-9A-Za-z] from nanoid's cryptographically
 * random generator.
 */
export function createNanoidAliasGenerator(length = GENERATED_ALIAS_LENGTH): AliasGenerator {
  const generate = customAlphabet(BASE62_ALPHABET, length);
  return { generate: (asked) => generate(asked ?? length) };
}
