/**
 * Produces candidate aliases; uniqueness is decided by the link store, not here. Each must follow
 * the rules of a chosen alias (1 to 64 of `[A-Za-z0-9_-]`): anything else fails the create with
 * INTERNAL and is not stored.
 */
export interface AliasGenerator {
  /**
   * `length`: how many characters the core asks for: GENERATED_ALIAS_LENGTH (7), more under a
   * domain whose generated aliases often collide (links/generated-alias-lengths.ts). A generator
   * may ignore it.
   */
  generate(length?: number): string;
}
