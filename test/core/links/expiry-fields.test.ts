import { createTestCore, type CoreFixture } from '../../support/core-fixture';
import { expectFailure } from '../../support/failures';

/** expires_at (31) and max_visits (32) on links.create, by a clock that stands still. */

const NOW = new Date('2027-03-01T12:00:00.000Z');
const EXPIRES_AT_INVALID =
  'expires_at must be an RFC 3339 date-time with an offset, in the future and at most 10 years ahead.';
const MAX_VISITS_INVALID = 'max_visits must be an integer from 1 to 1,000,000,000.';

let f: CoreFixture;
beforeEach(async () => {
  f = await createTestCore({ clock: { now: () => new Date(NOW) } });
});

const create = (fields: Record<string, unknown>) =>
  f.caller().links.create(f.body(fields) as never);

/** The stored link of a create with `fields`: its expiry and its limit as the store holds them. */
async function storedLimits(fields: Record<string, unknown>) {
  const link = await create(fields);
  const stored = await f.store.links.findById(link.id);
  return { expiresAt: stored?.expiresAt?.toISOString(), maxVisits: stored?.maxVisits };
}

describe('links.create: expires_at (code 31)', () => {
  it.each([
    ['UTC (Z)', '2027-03-01T12:00:01Z', '2027-03-01T12:00:01.000Z'],
    ['a positive offset', '2027-03-02T00:00:00+02:00', '2027-03-01T22:00:00.000Z'],
    ['a negative offset', '2027-03-01T08:30:00-04:00', '2027-03-01T12:30:00.000Z'],
    ['-00:00 (offset unknown)', '2030-01-01T00:00:00-00:00', '2030-01-01T00:00:00.000Z'],
    ['a lower-case t and z', '2030-01-01t00:00:00z', '2030-01-01T00:00:00.000Z'],
    [
      'a fraction, kept to the millisecond',
      '2030-01-01T00:00:00.123987Z',
      '2030-01-01T00:00:00.123Z',
    ],
    ['a leap day', '2028-02-29T00:00:00Z', '2028-02-29T00:00:00.000Z'],
    ['one millisecond after now', '2027-03-01T12:00:00.001Z', '2027-03-01T12:00:00.001Z'],
    ['exactly ten years ahead', '2037-03-01T12:00:00Z', '2037-03-01T12:00:00.000Z'],
  ])('accepts %s and stores the instant', async (_label, given, stored) => {
    expect(await storedLimits({ expires_at: given })).toEqual({
      expiresAt: stored,
      maxVisits: undefined,
    });
  });

  it.each([
    ['omitted', undefined],
    ['null', null],
  ])('stores no expiry when it is %s', async (_label, value) => {
    const body = f.body({ expires_at: value });
    if (value === undefined) delete body['expires_at'];
    const link = await f.caller().links.create(body as never);
    expect(await f.store.links.findById(link.id)).not.toHaveProperty('expiresAt');
  });

  it.each([
    ['now itself (not later)', '2027-03-01T12:00:00Z'],
    ['a second ago', '2027-03-01T11:59:59Z'],
    ['long ago', '1999-12-31T23:59:59Z'],
    ['the same instant as now in another offset', '2027-03-01T14:00:00+02:00'],
    ['a millisecond past ten years', '2037-03-01T12:00:00.001Z'],
    ['eleven years ahead', '2038-03-01T12:00:00Z'],
    ['no offset', '2030-01-01T00:00:00'],
    ['a date only', '2030-01-01'],
    ['a space for the T', '2030-01-01 00:00:00Z'],
    ['no seconds', '2030-01-01T00:00Z'],
    ['an offset without a colon', '2030-01-01T00:00:00+0200'],
    ['an offset of hours only', '2030-01-01T00:00:00+02'],
    ['February 30', '2030-02-30T00:00:00Z'],
    ['February 29 of a common year', '2029-02-29T00:00:00Z'],
    ['hour 24', '2030-01-01T24:00:00Z'],
    ['a leap second', '2030-06-30T23:59:60Z'],
    ['an offset of 24 hours', '2030-01-01T00:00:00+24:00'],
    ['an expanded year', '+002030-01-01T00:00:00Z'],
    ['surrounding spaces', ' 2030-01-01T00:00:00Z '],
    ['a date in words', 'Tue, 01 Jan 2030 00:00:00 GMT'],
    ['an empty string', ''],
    ['epoch milliseconds', 1_900_000_000_000],
    ['epoch seconds as text', '1900000000'],
    ['a boolean', true],
    ['an array', ['2030-01-01T00:00:00Z']],
    ['an object', { at: '2030-01-01T00:00:00Z' }],
    ['a Date (in process: the wire form only)', new Date('2030-01-01T00:00:00Z')],
  ])('refuses %s with 31 and stores nothing', async (_label, value) => {
    await expectFailure(create({ expires_at: value }), 'EXPIRES_AT_INVALID', [EXPIRES_AT_INVALID]);
    expect(f.linkCount()).toBe(0);
  });

  it('judges "later than now" by the core\'s clock, not the machine\'s', async () => {
    // Years behind the real time, yet after the core's now: accepted.
    expect(await storedLimits({ expires_at: '2027-03-01T12:00:05Z' })).toMatchObject({
      expiresAt: '2027-03-01T12:00:05.000Z',
    });
  });
});

describe('links.create: max_visits (code 32)', () => {
  it.each([1, 2, 50, 999_999_999, 1_000_000_000])('accepts %d and stores it', async (limit) => {
    expect(await storedLimits({ max_visits: limit })).toEqual({
      expiresAt: undefined,
      maxVisits: limit,
    });
  });

  it('stores no limit when it is null', async () => {
    const link = await create({ max_visits: null });
    expect(await f.store.links.findById(link.id)).not.toHaveProperty('maxVisits');
  });

  it.each([
    ['0', 0],
    ['-1', -1],
    ['1.5', 1.5],
    ['one past the limit', 1_000_000_001],
    ['2^53', 2 ** 53],
    ['Infinity', Infinity],
    ['NaN', NaN],
    ['the text "5"', '5'],
    ['an empty string', ''],
    ['a boolean', true],
    ['an array', [5]],
    ['an object', { value: 5 }],
    ['a bigint', 5n],
  ])('refuses %s with 32 and stores nothing', async (_label, value) => {
    await expectFailure(create({ max_visits: value }), 'MAX_VISITS_INVALID', [MAX_VISITS_INVALID]);
    expect(f.linkCount()).toBe(0);
  });

  it('stores an expiry and a limit together', async () => {
    expect(await storedLimits({ expires_at: '2028-01-01T00:00:00Z', max_visits: 3 })).toEqual({
      expiresAt: '2028-01-01T00:00:00.000Z',
      maxVisits: 3,
    });
  });

  it("answers the spec's six fields only, whatever the limits", async () => {
    const link = await create({ expires_at: '2028-01-01T00:00:00Z', max_visits: 3 });
    expect(Object.keys(link).sort()).toEqual(
      ['alias', 'domain', 'id', 'redirect_type', 'short_url', 'url'].sort(),
    );
  });
});

describe('links.create: every failing field reported, the code of the first', () => {
  const URL_INVALID =
    'url must be an absolute http:// or https:// URL with a host and no spaces or control characters.';
  const ALIAS_INVALID = 'alias may contain only letters, digits, "_" and "-".';
  const REDIRECT_INVALID = 'redirect_type must be one of 301, 302, 303, 307, 308.';

  it('url, alias, redirect_type, expires_at, max_visits: 7 with five messages in that order', async () => {
    await expectFailure(
      create({
        max_visits: 0,
        expires_at: 'tomorrow',
        redirect_type: 200,
        alias: 'a b',
        url: 'ftp://x',
      }),
      'URL_INVALID',
      [URL_INVALID, ALIAS_INVALID, REDIRECT_INVALID, EXPIRES_AT_INVALID, MAX_VISITS_INVALID],
    );
  });

  it('redirect_type (16) before expires_at and max_visits', async () => {
    await expectFailure(
      create({ redirect_type: '302', expires_at: '2000-01-01T00:00:00Z', max_visits: '5' }),
      'REDIRECT_TYPE_INVALID',
      [REDIRECT_INVALID, EXPIRES_AT_INVALID, MAX_VISITS_INVALID],
    );
  });

  it('expires_at (31) before max_visits (32); an expiry in the past counts as a failing field', async () => {
    await expectFailure(
      create({ max_visits: 1.5, expires_at: '2027-03-01T11:00:00Z' }),
      'EXPIRES_AT_INVALID',
      [EXPIRES_AT_INVALID, MAX_VISITS_INVALID],
    );
  });

  it('a past expiry is reported with a bad url, after it', async () => {
    await expectFailure(create({ url: '', expires_at: '2020-01-01T00:00:00Z' }), 'URL_MISSING', [
      'url is required.',
      EXPIRES_AT_INVALID,
    ]);
  });
});

describe('links.create with an Idempotency-Key: the limits are part of the request', () => {
  const keyed = (key: string, fields: Record<string, unknown>) =>
    f.caller({ idempotencyKey: key }).links.create(f.body(fields) as never);

  it('replays the same limits (the instant in another offset too), refuses others with 25', async () => {
    const first = await keyed('k1', { expires_at: '2028-01-01T00:00:00Z', max_visits: 5 });
    const again = await keyed('k1', { expires_at: '2028-01-01T01:00:00+01:00', max_visits: 5 });
    expect(again).toEqual(first);
    for (const other of [
      {},
      { max_visits: 5 },
      { expires_at: '2028-01-01T00:00:00Z' },
      { expires_at: '2028-01-01T00:00:00Z', max_visits: 6 },
    ]) {
      await expect(keyed('k1', other)).rejects.toMatchObject({ reason: 'IDEMPOTENCY_KEY_REUSED' });
    }
    expect(f.linkCount()).toBe(1);
  });

  it('never replays a request without limits to one with them', async () => {
    await keyed('k2', {});
    await expect(keyed('k2', { max_visits: 5 })).rejects.toMatchObject({
      reason: 'IDEMPOTENCY_KEY_REUSED',
    });
  });

  it('records a 31 and replays it to the same request', async () => {
    const refused = { expires_at: '2020-01-01T00:00:00Z' };
    await expect(keyed('k3', refused)).rejects.toMatchObject({ reason: 'EXPIRES_AT_INVALID' });
    const response = {};
    await expect(
      f.caller({ idempotencyKey: 'k3', response }).links.create(f.body(refused) as never),
    ).rejects.toMatchObject({ reason: 'EXPIRES_AT_INVALID' });
    expect(response).toMatchObject({ idempotentReplayed: true });
  });
});
