import { Metadata, status } from '@grpc/grpc-js';
import { BackendUnavailableError, ErrorCode, type UrlGuard } from '../../core';
import type { CoreFixture } from '../support/core-fixture';
import { startHttp, type HttpFixture } from '../support/http-fixture';
import { heldCalls } from '../support/held-url-guard';
import { MALFORMED_KEYS, manualClock } from '../support/idempotency';
import { gatedUrlGuard } from './gated-url-guard';
import {
  metadataText,
  startGrpcOnTestCore,
  validRequest,
  type GrpcFixture,
} from '../support/grpc-fixture';

let f: CoreFixture;
let grpc: GrpcFixture;

async function start(urlGuard?: UrlGuard) {
  ({ f, grpc } = await startGrpcOnTestCore(urlGuard ? { urlGuard } : {}));
}
afterEach(() => grpc.close());

function keyed(key: string, token = f.token): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  metadata.set('idempotency-key', key);
  return metadata;
}

const create = (key: string, overrides = {}, token?: string) =>
  grpc.create(validRequest(f, overrides), keyed(key, token));

const shortlinkCode = (outcome: { status: { metadata: Metadata } }) =>
  metadataText(outcome.status.metadata, 'shortlink-error-code');
const replayed = (outcome: { status: { metadata: Metadata } }) =>
  metadataText(outcome.status.metadata, 'idempotent-replayed');

describe('CreateShortLink with idempotency-key metadata', () => {
  it('replays a success (generated alias) with the trailer idempotent-replayed: true', async () => {
    await start();
    const first = await create('g-1');
    expect(first.error).toBeUndefined();
    expect(replayed(first)).toBeUndefined();
    const second = await create('g-1');
    expect(second.response).toEqual(first.response);
    expect(replayed(second)).toBe('true');
    expect(metadataText(second.status.metadata, 'x-ratelimit-remaining')).toBe('58');
    expect(f.linkCount()).toBe(1);
  });

  it('replays a chosen alias and a recorded 15 (ALREADY_EXISTS)', async () => {
    await start();
    const chosen = await create('c-1', { alias: 'winter', redirectType: 302 });
    expect((await create('c-1', { alias: 'winter', redirectType: 302 })).response).toEqual(
      chosen.response,
    );
    const taken = await create('c-2', { alias: 'winter', url: 'https://example.com/other' });
    expect([taken.error?.code, shortlinkCode(taken)]).toEqual([
      status.ALREADY_EXISTS,
      String(ErrorCode.ALIAS_TAKEN),
    ]);
    const again = await create('c-2', { alias: 'winter', url: 'https://example.com/other' });
    expect([again.error?.code, shortlinkCode(again), replayed(again)]).toEqual([
      status.ALREADY_EXISTS,
      String(ErrorCode.ALIAS_TAKEN),
      'true',
    ]);
    expect(again.error?.details).toBe(taken.error?.details);
    expect(f.linkCount()).toBe(1);
  });

  it.each([
    ['url', { url: 'https://example.com/else' }],
    ['redirect_type', { redirectType: 303 }],
    ['organization', 'other'],
    ['group', { urlGroupId: '42' }],
  ])('answers INVALID_ARGUMENT, code 25 for another %s', async (_what, change) => {
    await start();
    await create('m-1');
    const overrides =
      change === 'other' ? { organizationKey: f.otherOrganizationKey } : (change as object);
    const outcome = await create('m-1', overrides);
    expect([outcome.error?.code, shortlinkCode(outcome)]).toEqual([
      status.INVALID_ARGUMENT,
      String(ErrorCode.IDEMPOTENCY_KEY_REUSED),
    ]);
    expect(f.linkCount()).toBe(1);
  });

  it('treats redirect_type 0 (proto3 default) as the default redirect, as REST’s absent field', async () => {
    await start();
    const first = await create('d-1', { redirectType: 0 });
    const second = await create('d-1', { redirectType: 301 });
    expect(second.response).toEqual(first.response);
    expect(replayed(second)).toBe('true');
  });

  // grpc-js clients refuse control and non-ASCII characters in metadata; see the raw HTTP/2 test.
  it.each(MALFORMED_KEYS.filter((bad) => /^[ -~]*$/.test(bad.key)))(
    'answers INVALID_ARGUMENT, code 27 for a key with $kind',
    async (bad) => {
      await start();
      const outcome = await create(bad.key);
      expect([outcome.error?.code, shortlinkCode(outcome)]).toEqual([
        status.INVALID_ARGUMENT,
        String(ErrorCode.IDEMPOTENCY_KEY_INVALID),
      ]);
      expect(outcome.error?.details).toMatch(bad.message);
      expect(f.linkCount()).toBe(0);
    },
  );

  it('answers ABORTED, code 26 with retry-after 1 while the first call runs', async () => {
    const gate = gatedUrlGuard();
    await start(gate.guard);
    const first = create('slow');
    await gate.entered;
    const busy = await create('slow');
    expect([busy.error?.code, shortlinkCode(busy)]).toEqual([
      status.ABORTED,
      String(ErrorCode.IDEMPOTENCY_KEY_IN_USE),
    ]);
    expect(metadataText(busy.status.metadata, 'retry-after')).toBe('1');
    gate.release();
    const done = await first;
    expect((await create('slow')).response).toEqual(done.response);
  });

  it('keeps keys per user', async () => {
    await start();
    await f.provisioner.saveUser({ id: 'carol', organizations: ['acme'] });
    const carol = (await f.provisioner.issueToken('carol')).token as string;
    const alices = await create('u-1');
    const carols = await create('u-1', {}, carol);
    expect(carols.response?.shortLink?.id).not.toBe(alices.response?.shortLink?.id);
    expect(replayed(carols)).toBeUndefined();
  });

  it('20 concurrent calls with one key create exactly one link', async () => {
    await start();
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => create('burst')));
    expect(f.linkCount()).toBe(1);
    const ok = outcomes.filter((o) => o.error === undefined);
    expect(new Set(ok.map((o) => o.response?.shortLink?.id)).size).toBe(1);
    expect(ok.filter((o) => replayed(o) === 'true')).toHaveLength(ok.length - 1);
    for (const other of outcomes.filter((o) => o.error !== undefined)) {
      expect([other.error?.code, shortlinkCode(other)]).toEqual([
        status.ABORTED,
        String(ErrorCode.IDEMPOTENCY_KEY_IN_USE),
      ]);
    }
  });

  it('an UNAVAILABLE (23) releases the key', async () => {
    let failures = 1;
    await start({
      check: () =>
        failures-- > 0
          ? Promise.reject(new BackendUnavailableError('down'))
          : Promise.resolve({ blocked: false }),
    });
    const failed = await create('fault');
    expect([failed.error?.code, shortlinkCode(failed)]).toEqual([
      status.UNAVAILABLE,
      String(ErrorCode.BACKEND_UNAVAILABLE),
    ]);
    const retry = await create('fault');
    expect(retry.error).toBeUndefined();
    expect(replayed(retry)).toBeUndefined();
    expect(f.linkCount()).toBe(1);
  });
});

describe('CreateShortLink with idempotency-key: the organization is checked on every retry', () => {
  it('answers UNAUTHENTICATED, code 13 to a retry after `org deactivate`, not the replay', async () => {
    await start();
    const first = await create('org-off');
    expect(first.error).toBeUndefined();
    await f.provisioner.setOrganizationActive('acme', false);
    const retry = await create('org-off');
    expect([retry.error?.code, shortlinkCode(retry), replayed(retry)]).toEqual([
      status.UNAUTHENTICATED,
      String(ErrorCode.ORGANIZATION_INACTIVE),
      undefined,
    ]);
    await f.provisioner.setOrganizationActive('acme', true);
    const replay = await create('org-off');
    expect([replay.response, replayed(replay)]).toEqual([first.response, 'true']);
  });

  it('records no 17 (PERMISSION_DENIED): after `member add` the retry creates the link', async () => {
    await start();
    const refused = await create('join', {}, f.outsiderToken);
    expect([refused.error?.code, shortlinkCode(refused)]).toEqual([
      status.PERMISSION_DENIED,
      String(ErrorCode.NOT_A_MEMBER),
    ]);
    await f.provisioner.addMember('bob', 'acme');
    const retry = await create('join', {}, f.outsiderToken);
    expect([retry.error, replayed(retry)]).toEqual([undefined, undefined]);
    expect(f.linkCount()).toBe(1);
  });
});

describe('CreateShortLink with idempotency-key: a call paused past its lease', () => {
  it('stores nothing once a retry completed, and answers the retry’s link, replayed', async () => {
    const clock = manualClock();
    const guard = heldCalls([0]);
    ({ f, grpc } = await startGrpcOnTestCore({ clock, urlGuard: guard.guard }));
    const paused = create('paused');
    await guard.reached(1);
    clock.advanceSeconds(61);
    const retry = await create('paused');
    expect([retry.error, replayed(retry)]).toEqual([undefined, undefined]);
    guard.release(0);
    const late = await paused;
    expect([late.error, late.response, replayed(late)]).toEqual([
      undefined,
      retry.response,
      'true',
    ]);
    expect(f.linkCount()).toBe(1);
  });
});

describe('one key across REST and gRPC', () => {
  let http: HttpFixture;
  afterEach(() => http.close());

  it('replays over gRPC what REST created, and over REST what gRPC created', async () => {
    await start();
    http = await startHttp(f.core);
    const rest = await http.create(f.body({ url: 'https://example.com/both' }), f.token, {
      'Idempotency-Key': 'cross-1',
    });
    expect(rest.status).toBe(200);
    const restLink = (rest.json() as { data: { id: number; alias: string } }).data;
    const overGrpc = await create('cross-1', { url: 'https://example.com/both' });
    expect(overGrpc.response?.shortLink).toMatchObject({ id: restLink.id, alias: restLink.alias });
    expect(replayed(overGrpc)).toBe('true');

    const grpcFirst = await create('cross-2', { alias: 'both-ways' });
    const overRest = await http.create(f.body({ alias: 'both-ways' }), f.token, {
      'Idempotency-Key': 'cross-2',
    });
    expect(overRest.status).toBe(200);
    expect(overRest.headers['idempotent-replayed']).toBe('true');
    expect((overRest.json() as { data: { id: number } }).data.id).toBe(
      grpcFirst.response?.shortLink?.id,
    );
    // A REST body that means something else under the gRPC key: 25.
    const other = await http.create(f.body({ alias: 'other' }), f.token, {
      'Idempotency-Key': 'cross-2',
    });
    expect([other.status, (other.json() as { code: number }).code]).toEqual([
      422,
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
    ]);
    expect(f.linkCount()).toBe(2);
  });
});

describe('a key with spaces around it, as grpc-js clients send it', () => {
  let http: HttpFixture;
  afterEach(() => http.close());

  it('is the key without them, as over REST: the create runs once and is replayed', async () => {
    await start();
    http = await startHttp(f.core);
    const first = await create('spaced-1 ', { url: 'https://example.com/spaced' });
    expect(first.error).toBeUndefined();
    expect(replayed(first)).toBeUndefined();
    const again = await create('spaced-1 ', { url: 'https://example.com/spaced' });
    expect(again.response).toEqual(first.response);
    expect(replayed(again)).toBe('true');
    const around = await create('  spaced-1  ', { url: 'https://example.com/spaced' });
    expect([around.response, replayed(around)]).toEqual([first.response, 'true']);
    const bare = await create('spaced-1', { url: 'https://example.com/spaced' });
    expect([bare.response, replayed(bare)]).toEqual([first.response, 'true']);
    const overRest = await http.create(f.body({ url: 'https://example.com/spaced' }), f.token, {
      'Idempotency-Key': 'spaced-1 ',
    });
    expect(overRest.headers['idempotent-replayed']).toBe('true');
    expect((overRest.json() as { data: { id: number } }).data.id).toBe(
      first.response?.shortLink?.id,
    );
    // Another request under the trimmed key is 25, never a second link.
    const other = await create('spaced-1 ', { url: 'https://example.com/other' });
    expect([other.error?.code, shortlinkCode(other)]).toEqual([
      status.INVALID_ARGUMENT,
      String(ErrorCode.IDEMPOTENCY_KEY_REUSED),
    ]);
    expect(f.linkCount()).toBe(1);
  });

  it('refuses a key of spaces only, or with a space inside, with 27 (never runs without it)', async () => {
    await start();
    const blank = await create('   ');
    expect([blank.error?.code, shortlinkCode(blank)]).toEqual([
      status.INVALID_ARGUMENT,
      String(ErrorCode.IDEMPOTENCY_KEY_INVALID),
    ]);
    expect(blank.error?.details).toMatch(/must not be empty/);
    const inside = await create(' two words ');
    expect([inside.error?.code, shortlinkCode(inside)]).toEqual([
      status.INVALID_ARGUMENT,
      String(ErrorCode.IDEMPOTENCY_KEY_INVALID),
    ]);
    expect(inside.error?.details).toMatch(/visible ASCII/);
    expect(f.linkCount()).toBe(0);
  });
});
