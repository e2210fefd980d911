import { createMemoryStore, silentLogger, type LinkStore, type NewLink } from '../../../core';
import { GENERATED_ALIAS_LENGTH } from '../../../core/adapters/nanoid-alias-generator';
import {
  ALIAS_COLLISION_WINDOW_MS,
  ALIAS_COLLISIONS_TO_GROW,
  GeneratedAliasLengths,
} from '../../../core/links/generated-alias-lengths';
import { captureLogs } from '../../support/log-capture';
import { ACME_DOMAIN, BETA_DOMAIN, createTestCore } from '../../support/core-fixture';

/**
 * A memory store whose `full` domains are half full at the base length: every other generated
 * alias of GENERATED_ALIAS_LENGTH characters inserted under them is taken (the insert answers
 * 'alias_taken', as the unique index would); longer aliases never are. Counts the collisions.
 */
function halfFullStore(full: readonly string[]) {
  const store = createMemoryStore();
  const links: LinkStore = store.links;
  let shortInserts = 0;
  let collisions = 0;
  const insert = links.insert.bind(links);
  links.insert = (link: NewLink) => {
    if (full.includes(link.domain) && link.alias.length === GENERATED_ALIAS_LENGTH) {
      shortInserts += 1;
      if (shortInserts % 2 === 1) {
        collisions += 1;
        return Promise.resolve('alias_taken');
      }
    }
    return insert(link);
  };
  return { store, collisions: () => collisions };
}

describe('generated aliases lengthen as a domain fills', () => {
  it('grows a domain by one character after ALIAS_COLLISIONS_TO_GROW collisions, and no other domain', async () => {
    const half = halfFullStore([ACME_DOMAIN]);
    const logs = captureLogs();
    const t = await createTestCore({ store: half.store, logger: logs.logger });
    const lengths: number[] = [];
    for (let i = 0; i < ALIAS_COLLISIONS_TO_GROW * 3; i += 1) {
      const link = await t
        .caller()
        .links.create(t.body({ url: `https://example.com/${i}` }) as never);
      lengths.push(link.alias.length);
    }
    // Every other 7-character alias collided, each retried: the first creates made 7-character
    // links; the one whose first try was the ALIAS_COLLISIONS_TO_GROW-th collision retried with 8
    // characters, and so did every create after it, where nothing collides.
    const grown = ALIAS_COLLISIONS_TO_GROW - 1;
    expect(half.collisions()).toBe(ALIAS_COLLISIONS_TO_GROW);
    expect(lengths.slice(0, grown)).toEqual(Array(grown).fill(GENERATED_ALIAS_LENGTH));
    expect(new Set(lengths.slice(grown))).toEqual(new Set([GENERATED_ALIAS_LENGTH + 1]));
    expect(logs.records()).toContainEqual(
      expect.objectContaining({ domain: ACME_DOMAIN, length: GENERATED_ALIAS_LENGTH + 1 }),
    );
    // The other organization's domain had no collision: still the base length.
    const beta = await t
      .caller()
      .links.create(
        t.body({ organization_key: t.otherOrganizationKey, url: 'https://example.com/b' }) as never,
      );
    expect(beta.alias).toHaveLength(GENERATED_ALIAS_LENGTH);
    expect(beta.domain).toBe(BETA_DOMAIN);
  });

  it('grows only when the collisions come within one window', () => {
    let now = 0;
    const lengths = new GeneratedAliasLengths(silentLogger, {
      base: GENERATED_ALIAS_LENGTH,
      now: () => now,
    });
    // Collisions spread thinner than the window never add up to a growth.
    for (let i = 0; i < ALIAS_COLLISIONS_TO_GROW * 3; i += 1) {
      lengths.collided('a.link');
      now += ALIAS_COLLISION_WINDOW_MS / (ALIAS_COLLISIONS_TO_GROW - 1) + 1;
    }
    expect(lengths.lengthFor('a.link')).toBe(GENERATED_ALIAS_LENGTH);
    // Within one window they do, and again in the next window: one character each time.
    for (let round = 1; round <= 2; round += 1) {
      for (let i = 0; i < ALIAS_COLLISIONS_TO_GROW; i += 1) lengths.collided('a.link');
      expect(lengths.lengthFor('a.link')).toBe(GENERATED_ALIAS_LENGTH + round);
    }
    expect(lengths.lengthFor('b.link')).toBe(GENERATED_ALIAS_LENGTH);
  });
});
