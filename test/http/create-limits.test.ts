import type { CoreFixture } from '../support/core-fixture';
import { expectError } from '../support/http-assertions';
import { startHttpOnTestCore, type HttpFixture } from '../support/http-fixture';

/** POST /api/create with expires_at and max_visits: exact bodies, by a clock that stands still. */

const NOW = new Date('2027-03-01T12:00:00.000Z');
const EXPIRES_AT_INVALID =
  'expires_at must be an RFC 3339 date-time with an offset, in the future and at most 10 years ahead.';
const MAX_VISITS_INVALID = 'max_visits must be an integer from 1 to 1,000,000,000.';

let f: CoreFixture;
let http: HttpFixture;

beforeEach(async () => ({ f, http } = await startHttpOnTestCore({ clock: { now: () => NOW } })));
afterEach(() => http.close());

describe('POST /api/create: expires_at and max_visits', () => {
  it('answers 200 with the six fields of data only, and stores both limits', async () => {
    const answer = await http.create(
      f.body({ alias: 'launch', expires_at: '2027-03-08T12:00:00+01:00', max_visits: 100 }),
      f.token,
    );
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(
      '{"data":{"id":1,"short_url":"https://acme.link/launch","url":"https://example.com/some/long/path?q=1",' +
        '"domain":"acme.link","alias":"launch","redirect_type":301},"code":0,"errors":[]}',
    );
    const stored = await f.store.links.findById(1);
    expect([stored?.expiresAt?.toISOString(), stored?.maxVisits]).toEqual([
      '2027-03-08T11:00:00.000Z',
      100,
    ]);
  });

  it('reads null as none', async () => {
    const answer = await http.create(f.body({ expires_at: null, max_visits: null }), f.token);
    expect(answer.status).toBe(200);
    const stored = await f.store.links.findById(1);
    expect(stored).not.toHaveProperty('expiresAt');
    expect(stored).not.toHaveProperty('maxVisits');
  });

  it.each([
    ['in the past', '2027-03-01T11:59:59Z'],
    ['without an offset', '2027-04-01T00:00:00'],
    ['a number', 1_900_000_000],
  ])('answers 422, code 31, for an expires_at %s', async (_label, value) => {
    expectError(
      await http.create(f.body({ expires_at: value }), f.token),
      422,
      'EXPIRES_AT_INVALID',
      [EXPIRES_AT_INVALID],
    );
    expect(f.linkCount()).toBe(0);
  });

  it.each([
    ['the text "5"', '5'],
    ['0', 0],
    ['1.5', 1.5],
    ['too big', 1_000_000_001],
  ])('answers 422, code 32, for a max_visits of %s', async (_label, value) => {
    expectError(
      await http.create(f.body({ max_visits: value }), f.token),
      422,
      'MAX_VISITS_INVALID',
      [MAX_VISITS_INVALID],
    );
  });

  it('reports every failing field, code of the first: 16, then 31, then 32', async () => {
    expectError(
      await http.create(
        f.body({ redirect_type: 200, expires_at: 'soon', max_visits: -1 }),
        f.token,
      ),
      422,
      'REDIRECT_TYPE_INVALID',
      [
        'redirect_type must be one of 301, 302, 303, 307, 308.',
        EXPIRES_AT_INVALID,
        MAX_VISITS_INVALID,
      ],
    );
  });

  it('replays a keyed create with the same limits and refuses one without them (25)', async () => {
    const key = { 'Idempotency-Key': 'limits-1' };
    const body = f.body({ expires_at: '2027-03-02T00:00:00Z', max_visits: 2 });
    const first = await http.create(body, f.token, key);
    const again = await http.create(
      { ...body, expires_at: '2027-03-02T01:00:00+01:00' },
      f.token,
      key,
    );
    expect([again.status, again.text, again.headers['idempotent-replayed']]).toEqual([
      200,
      first.text,
      'true',
    ]);
    const without = await http.create(f.body(), f.token, key);
    expect(without.status).toBe(422);
    expect((without.json() as { code: number }).code).toBe(25);
  });
});
