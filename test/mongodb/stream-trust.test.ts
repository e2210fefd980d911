import { Timestamp, type Db } from 'mongodb';
import { withCaches } from '../../core';
import {
  resumeTokenTime,
  STREAM_START_EARLIER_SECONDS,
  streamStartTime,
} from '../../core/adapters/mongodb/resumable-change-stream';
import { TRUSTED_WHILE_STREAM_ADVANCES_SECONDS } from '../../core/caches/stream-trust';
import { insertNew, newLink, organization } from '../storage/fixtures';
import { networkError, storeWithFakeStreams, type FakeStream } from './fake-change-streams';

/**
 * The caches trust a link or an organization longer (TRUSTED_WHILE_STREAM_ADVANCES_SECONDS)
 * while the change stream that would report its change advances, and fall back to
 * CHANGE_PROPAGATION_SECONDS (5 s here) as soon as it does not: on fake driver streams whose
 * resume tokens carry the server's time, as real ones do, and a store that counts its reads.
 */

/** A resume token as a server makes it: KeyString of the cluster time (0x82, seconds, increment). */
const tokenAt = (epochMs: number, increment = 1) => ({
  _data: `82${Math.floor(epochMs / 1000)
    .toString(16)
    .padStart(8, '0')}${increment.toString(16).padStart(8, '0')}2B0229296E04`,
});

const PROPAGATION_SECONDS = 5;

async function setUp() {
  const { links, identities, backend } = storeWithFakeStreams();
  let clock = 0;
  const store = withCaches(backend, {
    linkCacheSize: 100,
    identityTtlSeconds: 10,
    propagationSeconds: PROPAGATION_SECONDS,
    now: () => clock,
  });
  await Promise.all([links.openedCount(1), identities.openedCount(1)]);
  await insertNew(backend.links, newLink({ alias: 'promo' }));
  await backend.identities.saveOrganization(organization());
  const reads = () => backend.tally.of('links.findByAlias');
  const follow = async () => {
    backend.tally.reset();
    await store.links.findByAlias('acme.link', 'promo');
    return reads();
  };
  return {
    store,
    backend,
    linkStream: links.latest(),
    identityStream: identities.latest(),
    follow,
    /** Moves the caches' clock on by `seconds`. */
    later: (seconds: number) => {
      clock += seconds * 1000;
    },
  };
}

/** The server answers a quiet batch: a resume token dated `epochMs`. */
const advance = (stream: FakeStream, epochMs = Date.now()) =>
  stream.emit('resumeTokenChanged', tokenAt(epochMs));

afterEach(() => jest.restoreAllMocks());

describe('caches trusted longer while their change stream advances', () => {
  it('reads a hot link once a minute while its stream advances, not every 5 s', async () => {
    const t = await setUp();
    advance(t.linkStream);
    expect(await t.follow()).toBe(1);
    for (const seconds of [6, 20, 45, TRUSTED_WHILE_STREAM_ADVANCES_SECONDS - 1]) {
      t.later(seconds);
      advance(t.linkStream);
      expect(await t.follow()).toBe(0);
      t.later(-seconds);
    }
    // Past the longer trust the link is read again, and trusted for another minute.
    t.later(TRUSTED_WHILE_STREAM_ADVANCES_SECONDS);
    expect(await t.follow()).toBe(1);
    t.later(30);
    expect(await t.follow()).toBe(0);
    await t.store.close();
  });

  it('still drops a changed link at once while it trusts it longer', async () => {
    const t = await setUp();
    advance(t.linkStream);
    await t.follow();
    t.later(20);
    t.linkStream.emit('change', {
      _id: tokenAt(Date.now(), 2),
      operationType: 'update',
      wallTime: new Date(),
      documentKey: { _id: 1 },
      fullDocument: { domain: 'acme.link', alias: 'promo' },
    });
    expect(await t.follow()).toBe(1);
    await t.store.close();
  });

  it('falls back to 5 s once the stream stalls (no token for more than 5 s)', async () => {
    const t = await setUp();
    advance(t.linkStream);
    await t.follow();
    t.later(3);
    expect(await t.follow()).toBe(0);
    // The stream goes quiet: the server hands out nothing more. 6 s later (by the wall clock,
    // which the stream's position is compared with), the 5 s TTL is back.
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 6000);
    t.later(3);
    expect(await t.follow()).toBe(1);
    t.later(4);
    expect(await t.follow()).toBe(0);
    t.later(2);
    expect(await t.follow()).toBe(1);
    await t.store.close();
  });

  it('falls back to 5 s while the stream runs behind (its tokens older than 5 s)', async () => {
    const t = await setUp();
    advance(t.linkStream, Date.now() - 8000);
    await t.follow();
    t.later(6);
    expect(await t.follow()).toBe(1);
    await t.store.close();
  });

  it('falls back to 5 s while the stream has failed, and without any position', async () => {
    const t = await setUp();
    // Opened, but no token yet: it cannot tell where it is.
    await t.follow();
    t.later(6);
    expect(await t.follow()).toBe(1);
    advance(t.linkStream);
    t.linkStream.emit('error', networkError());
    t.later(6);
    expect(await t.follow()).toBe(1);
    await t.store.close();
  });

  it('trusts an organization longer while the identity stream advances, not the link stream', async () => {
    const t = await setUp();
    const lookUp = async () => {
      t.backend.tally.reset();
      await t.store.identities.findOrganizationById('acme');
      return t.backend.tally.of('identities.findOrganizationById');
    };
    advance(t.identityStream);
    expect(await lookUp()).toBe(1);
    t.later(30);
    advance(t.identityStream);
    expect(await lookUp()).toBe(0);
    // The identity stream stalls while the link stream advances: organizations are read again.
    jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 6000);
    advance(t.linkStream, Date.now());
    t.later(10);
    expect(await lookUp()).toBe(1);
    await t.store.close();
  });
});

describe("a change stream's position", () => {
  it('is the time of the last resume token or change, never moving back', async () => {
    const t = await setUp();
    const watch = t.store.changeWatches.find(({ stream }) => stream === 'link')!.watch;
    expect(watch.status?.().positionAt).toBeUndefined();
    advance(t.linkStream, 1_800_000_000_000);
    expect(watch.status?.().positionAt).toBe(1_800_000_000_000);
    advance(t.linkStream, 1_700_000_000_000);
    expect(watch.status?.().positionAt).toBe(1_800_000_000_000);
    t.linkStream.emit('change', {
      _id: { _data: 'not-a-keystring' },
      operationType: 'update',
      clusterTime: new Timestamp({ t: 1_800_000_030, i: 1 }),
      documentKey: { _id: 1 },
    });
    expect(watch.status?.().positionAt).toBe(1_800_000_030_000);
    await t.store.close();
  });

  it('is read from a KeyString token, and unknown for tokens of another shape', () => {
    expect(resumeTokenTime(tokenAt(1_765_000_000_000))).toBe(1_765_000_000_000);
    expect(resumeTokenTime({ _data: '8263A1F000000001' })).toBe(0x63a1f000 * 1000);
    expect(resumeTokenTime({ _data: '0163A1F0' })).toBeUndefined();
    expect(resumeTokenTime({ _data: 42 })).toBeUndefined();
    expect(resumeTokenTime(null)).toBeUndefined();
  });
});

describe('a stream from now starts a few seconds before the ping that dates it', () => {
  const dbAnswering = (reply: Record<string, unknown>) =>
    ({ command: () => Promise.resolve(reply) }) as unknown as Pick<Db, 'command'>;

  it(`starts ${STREAM_START_EARLIER_SECONDS} s before the ping's operation time`, async () => {
    const time = await streamStartTime(
      dbAnswering({ ok: 1, operationTime: new Timestamp({ t: 1_800_000_000, i: 7 }) }),
    );
    expect(time).toEqual(new Timestamp({ t: 1_800_000_000 - STREAM_START_EARLIER_SECONDS, i: 0 }));
  });

  it('has no start time where the server has none (a standalone server)', async () => {
    await expect(streamStartTime(dbAnswering({ ok: 1 }))).resolves.toBeUndefined();
  });
});
