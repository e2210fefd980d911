import fc from 'fast-check';
import { createMemoryRateLimiter } from '../../core';
import { createTestCore, type CoreFixture } from '../support/core-fixture';
import { failureOf } from '../support/failures';

/**
 * expires_at and max_visits rules (gateway-http/README.md, body fields) checked over generated
 * inputs, through links.create, by a clock that stands still.
 */

const RUNS = { numRuns: 100 };
const NOW = Date.parse('2027-03-01T12:00:00.000Z');
/** Ten years after NOW by the UTC calendar. */
const LATEST = Date.parse('2037-03-01T12:00:00.000Z');

let f: CoreFixture;
beforeAll(async () => {
  f = await createTestCore({
    clock: { now: () => new Date(NOW) },
    rateLimiter: createMemoryRateLimiter({ limit: 100_000, keyPrefix: 'expiry-property' }),
  });
});

const create = (fields: Record<string, unknown>) =>
  f.caller().links.create(f.body(fields) as never);
const reasonOf = async (fields: Record<string, unknown>) =>
  (await failureOf(create(fields))).reason;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `instant` written in RFC 3339 at an offset of `offsetMinutes`, with or without milliseconds. */
function rfc3339(instant: number, offsetMinutes: number, withMillis: boolean): string {
  const local = new Date(instant + offsetMinutes * 60_000);
  const date = `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const seconds = withMillis
    ? `${pad(local.getUTCSeconds())}.${pad(local.getUTCMilliseconds(), 3)}`
    : pad(local.getUTCSeconds());
  const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${seconds}`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const offset = offsetMinutes === 0 ? 'Z' : `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  return `${date}T${time}${offset}`;
}

/** Offsets of -23:59 to +23:59, whole minutes. */
const offset = fc.integer({ min: -(24 * 60 - 1), max: 24 * 60 - 1 });

describe('expires_at validation (property-based)', () => {
  it('accepts every instant after now and at most ten years ahead, in any offset, and stores it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: NOW + 1, max: LATEST }), offset, async (at, minutes) => {
        const link = await create({ expires_at: rfc3339(at, minutes, true) });
        expect((await f.store.links.findById(link.id))?.expiresAt?.getTime()).toBe(at);
      }),
      RUNS,
    );
  });

  it('refuses with 31 every instant not after now or past ten years ahead', async () => {
    const outside = fc.oneof(
      fc.integer({ min: NOW - 100 * 365 * 86_400_000, max: NOW }),
      fc.integer({ min: LATEST + 1, max: LATEST + 100 * 365 * 86_400_000 }),
    );
    await fc.assert(
      fc.asyncProperty(outside, offset, fc.boolean(), async (at, minutes, withMillis) => {
        // Without milliseconds the instant is floored to its second: still outside when it was.
        fc.pre(withMillis || at % 1000 === 0 || at <= NOW);
        expect(await reasonOf({ expires_at: rfc3339(at, minutes, withMillis) })).toBe(
          'EXPIRES_AT_INVALID',
        );
      }),
      RUNS,
    );
  });

  it('refuses with 31 any other text, and any other JSON value', async () => {
    const valid = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
    const notDateTime = fc.oneof(
      fc.string().filter((text) => !valid.test(text)),
      fc.double(),
      fc.boolean(),
      fc.array(fc.string(), { maxLength: 2 }),
      fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
    );
    await fc.assert(
      fc.asyncProperty(notDateTime, async (value) => {
        expect(await reasonOf({ expires_at: value })).toBe('EXPIRES_AT_INVALID');
      }),
      RUNS,
    );
  });
});

describe('max_visits validation (property-based)', () => {
  it('accepts every integer from 1 to 1,000,000,000 and stores it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000_000 }), async (limit) => {
        const link = await create({ max_visits: limit });
        expect((await f.store.links.findById(link.id))?.maxVisits).toBe(limit);
      }),
      RUNS,
    );
  });

  it('refuses with 32 every other number, and its text', async () => {
    const notLimit = fc.oneof(
      fc.integer({ max: 0 }),
      fc.integer({ min: 1_000_000_001 }),
      fc.double().filter((n) => !Number.isInteger(n) || n < 1 || n > 1_000_000_000),
      fc.integer({ min: 1, max: 1_000_000_000 }).map(String),
    );
    await fc.assert(
      fc.asyncProperty(notLimit, async (value) => {
        expect(await reasonOf({ max_visits: value })).toBe('MAX_VISITS_INVALID');
      }),
      RUNS,
    );
  });
});
