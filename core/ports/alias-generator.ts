/** Produces candidate aliases; uniqueness is decided by the link store, not here. */
export interface AliasGenerator {
  generate(): string;
}
