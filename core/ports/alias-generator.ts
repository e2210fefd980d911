/**
 * Produces candidate aliases; uniqueness is decided by the link store, not here. Each must follow
 * the rules of a chosen alias (1 to 64 of `[A-Za-z0-9_-]`): anything else fails the create with
 * INTERNAL and is not stored.
 */
export interface AliasGenerator {
  generate(): string;
}
