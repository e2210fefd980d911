/** Paths the service answers itself; no alias may shadow them (compared case-insensitively). */
export const BUILT_IN_RESERVED_ALIASES = [
  'api',
  'healthz',
  'readyz',
  'metrics',
  'docs',
  'openapi.json',
] as const;

export function reservedAliasSet(extra: Iterable<string> = []): ReadonlySet<string> {
  return new Set([...BUILT_IN_RESERVED_ALIASES, ...extra].map((alias) => alias.toLowerCase()));
}
