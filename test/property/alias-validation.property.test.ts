import fc from 'fast-check';
import { BUILT_IN_RESERVED_ALIASES } from '../../core';
import { expectFailure, failureOf } from '../support/failures';
import { createWith } from './create-with';

/** Alias rules (gateway-http/README.md, body fields) checked over generated inputs, through links.create. */

const RUNS = { numRuns: 100 };
const ALIAS_CHAR = /^[A-Za-z0-9_-]$/;
const isReserved = (alias: string) =>
  (BUILT_IN_RESERVED_ALIASES as readonly string[]).includes(alias.toLowerCase());

/** The reserved aliases an alias could spell ("openapi.json" has a ".", refused with 8 first). */
const SPELLABLE_RESERVED = BUILT_IN_RESERVED_ALIASES.filter((alias) =>
  /^[A-Za-z0-9_-]+$/.test(alias),
);

const validAlias = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
/** One character (any Unicode, lone surrogates included) outside [A-Za-z0-9_-]. */
const foreignChar = fc
  .oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
    fc.constantFrom(' ', '.', '/', '%', '\u0000', '\u00e9', '\ud800', '\u{1f600}'),
  )
  .filter((char) => !ALIAS_CHAR.test(char));
const validPart = fc.stringMatching(/^[A-Za-z0-9_-]{0,30}$/);

describe('alias validation (property-based)', () => {
  it('accepts every string of [A-Za-z0-9_-]{1,64} that is not reserved, as given', async () => {
    await fc.assert(
      fc.asyncProperty(validAlias, async (alias) => {
        fc.pre(!isReserved(alias));
        const { f, outcome } = await createWith({ alias });
        const link = await outcome;
        expect(link.alias).toBe(alias);
        expect(link.short_url).toBe(`https://${f.domain}/${alias}`);
      }),
      RUNS,
    );
  });

  it('refuses a reserved alias in any letter case with 15', async () => {
    const reservedInAnyCase = fc
      .tuple(
        fc.constantFrom(...SPELLABLE_RESERVED),
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      )
      .map(([alias, upper]) =>
        [...alias].map((char, i) => (upper[i] ? char.toUpperCase() : char)).join(''),
      );
    await fc.assert(
      fc.asyncProperty(reservedInAnyCase, async (alias) => {
        const { f, outcome } = await createWith({ alias });
        expect((await failureOf(outcome)).reason).toBe('ALIAS_TAKEN');
        expect(f.linkCount()).toBe(0);
      }),
      { numRuns: 40 },
    );
  });

  it('refuses with 8 any alias of at most 64 characters holding a character outside the set', async () => {
    await fc.assert(
      fc.asyncProperty(validPart, foreignChar, validPart, async (before, char, after) => {
        const alias = before + char + after;
        const { f, outcome } = await createWith({ alias });
        await expectFailure(outcome, 'ALIAS_INVALID', [
          'alias may contain only letters, digits, "_" and "-".',
        ]);
        expect(f.linkCount()).toBe(0);
      }),
      RUNS,
    );
  });

  it('refuses with 8 an alias that is not a string', async () => {
    const notAString = fc.oneof(
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(notAString, async (alias) => {
        const { outcome } = await createWith({ alias });
        expect((await failureOf(outcome)).reason).toBe('ALIAS_INVALID');
      }),
      { numRuns: 60 },
    );
  });

  it('refuses with 9 any alias over 64 characters of the valid alphabet', async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[A-Za-z0-9_-]{65,300}$/), async (alias) => {
        const { f, outcome } = await createWith({ alias });
        await expectFailure(outcome, 'ALIAS_TOO_LONG', ['alias must be at most 64 characters.']);
        expect(f.linkCount()).toBe(0);
      }),
      RUNS,
    );
  });
});
