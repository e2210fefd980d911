import { status } from '@grpc/grpc-js';
import type { CoreFixture } from '../support/core-fixture';
import { startGrpcOnTestCore, validRequest, type GrpcFixture } from '../support/grpc-fixture';
import { expectFailure } from './error-details';

/** CreateShortLink's expires_at and max_visits, and ResolveShortLink of a link with limits. */

const T0 = Date.parse('2027-03-01T12:00:00.000Z');
const EXPIRES_AT_INVALID =
  'expires_at must be an RFC 3339 date-time with an offset, in the future and at most 10 years ahead.';
const MAX_VISITS_INVALID = 'max_visits must be an integer from 1 to 1,000,000,000.';

let now = T0;
let f: CoreFixture;
let grpc: GrpcFixture;

beforeEach(async () => {
  now = T0;
  ({ f, grpc } = await startGrpcOnTestCore({ clock: { now: () => new Date(now) } }));
});
afterEach(() => grpc.close());

const stored = async (id: number) => {
  const link = await f.store.links.findById(id);
  return { expiresAt: link?.expiresAt?.toISOString(), maxVisits: link?.maxVisits };
};

describe('gRPC CreateShortLink: expires_at and max_visits', () => {
  it('stores both when set; the answer is the created link, its limits unset', async () => {
    const created = await grpc.create(
      validRequest(f, { alias: 'limited', expiresAt: '2027-03-02T00:00:00+01:00', maxVisits: 5 }),
      f.token,
    );
    expect(created.error).toBeUndefined();
    expect(created.response?.shortLink).toMatchObject({ alias: 'limited', redirectType: 301 });
    expect(await stored(created.response!.shortLink!.id)).toEqual({
      expiresAt: '2027-03-01T23:00:00.000Z',
      maxVisits: 5,
    });
  });

  it('stores neither when they are unset', async () => {
    const created = await grpc.create(validRequest(f), f.token);
    expect(await stored(created.response!.shortLink!.id)).toEqual({
      expiresAt: undefined,
      maxVisits: undefined,
    });
  });

  it.each([
    ['expires_at set to ""', { expiresAt: '' }, 'EXPIRES_AT_INVALID', [EXPIRES_AT_INVALID]],
    [
      'expires_at in the past',
      { expiresAt: '2027-03-01T11:00:00Z' },
      'EXPIRES_AT_INVALID',
      [EXPIRES_AT_INVALID],
    ],
    ['max_visits set to 0', { maxVisits: 0 }, 'MAX_VISITS_INVALID', [MAX_VISITS_INVALID]],
    ['max_visits negative', { maxVisits: -3 }, 'MAX_VISITS_INVALID', [MAX_VISITS_INVALID]],
    [
      'max_visits too big',
      { maxVisits: 1_000_000_001 },
      'MAX_VISITS_INVALID',
      [MAX_VISITS_INVALID],
    ],
    [
      'both invalid',
      { expiresAt: 'never', maxVisits: 0 },
      'EXPIRES_AT_INVALID',
      [EXPIRES_AT_INVALID, MAX_VISITS_INVALID],
    ],
  ] as const)(
    'refuses %s with INVALID_ARGUMENT and its code',
    async (_label, fields, reason, messages) => {
      const outcome = await grpc.create(validRequest(f, fields), f.token);
      expect(expectFailure(outcome, reason, status.INVALID_ARGUMENT, messages.length)).toEqual(
        messages,
      );
      expect(f.linkCount()).toBe(0);
    },
  );
});

describe('gRPC ResolveShortLink of a link with limits', () => {
  it('answers the link (its public view: no limits) until it expires, then FAILED_PRECONDITION, code 30', async () => {
    await grpc.create(
      validRequest(f, { alias: 'dated', expiresAt: '2027-03-01T12:01:00Z', maxVisits: 3 }),
      f.token,
    );
    const resolved = await grpc.resolve({ domain: f.domain, alias: 'dated' });
    // Without a member's credentials a resolve shows what a follow shows: not the limits.
    expect(resolved.response?.shortLink).toMatchObject({
      alias: 'dated',
      expiresAt: undefined,
      maxVisits: undefined,
    });
    now = T0 + 60_000;
    const messages = expectFailure(
      await grpc.resolve({ domain: f.domain, alias: 'dated' }),
      'LINK_EXPIRED',
      status.FAILED_PRECONDITION,
    );
    expect(messages).toEqual(['This short link has expired.']);
  });

  it('counts no visit: a max_visits link resolves any number of times until followed out', async () => {
    await grpc.create(validRequest(f, { alias: 'once', maxVisits: 1 }), f.token);
    for (let i = 0; i < 3; i += 1) {
      expect((await grpc.resolve({ domain: f.domain, alias: 'once' })).error).toBeUndefined();
    }
    expect((await f.store.links.findById(1))?.visits ?? 0).toBe(0);
    // One visit (a REST GET) uses it up; then resolving says so.
    await f.core.createCaller().links.resolve({ domain: f.domain, alias: 'once', visit: true });
    expectFailure(
      await grpc.resolve({ domain: f.domain, alias: 'once' }),
      'LINK_EXPIRED',
      status.FAILED_PRECONDITION,
    );
  });
});
