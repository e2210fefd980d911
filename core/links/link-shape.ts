import type { EveryField } from '../ports/link-store';

/**
 * The link is declared once, as LinkRecord (core/ports/link-store.ts). Every other shape of it is
 * written as an object of EveryField<...> (each store's encoder and decoder, the views, the proto
 * mapping), or as a record keyed by its fields with `satisfies` (the OpenAPI schema, the create's
 * fields): a field added to the record and forgotten in one of them fails `npm run typecheck`
 * there. test/core/links/link-shape.test.ts names the places.
 */

/** `fields` without the keys whose value is undefined: an optional field is absent, never undefined. */
export function withoutAbsent<T extends object>(fields: EveryField<T>): T {
  const present: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) present[key] = value;
  }
  return present as T;
}
