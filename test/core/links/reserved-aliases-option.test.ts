import { createTestCore } from '../../support/core-fixture';
import { failureOf } from '../../support/failures';

/**
 * `reservedAliases` are compared case-insensitively. A set an embedder gives as it writes the
 * aliases (`new Set(['Admin'])`, not through reservedAliasSet) was looked up with the lower-cased
 * alias only, so an entry holding a capital reserved nothing, in any case.
 */
describe('createCore({ reservedAliases })', () => {
  it('refuses an alias reserved with capitals, in any case', async () => {
    const f = await createTestCore({ reservedAliases: new Set(['Admin']) });
    for (const alias of ['Admin', 'admin', 'ADMIN']) {
      const error = await failureOf(f.caller().links.create(f.body({ alias }) as never));
      expect(error.reason).toBe('ALIAS_TAKEN');
    }
    expect(f.linkCount()).toBe(0);
  });
});
