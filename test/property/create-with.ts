import { createTestCore } from '../support/core-fixture';

/** A fresh test core, and its create of a valid body with `fields` over it (not awaited yet). */
export async function createWith(fields: Record<string, unknown>) {
  const f = await createTestCore();
  return { f, outcome: f.caller().links.create(f.body(fields) as never) };
}
