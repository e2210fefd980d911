import { Timestamp, type Db } from 'mongodb';
import {
  serverOperationTime,
  watchResumably,
  type WatchedEvent,
} from '../../core/adapters/mongodb/resumable-change-stream';
import { captureLogs } from '../support/log-capture';
import {
  fakeWatchable,
  networkError,
  opTime,
  pause,
  serverError,
  token,
  waitFor,
  type FakeStream,
} from './fake-change-streams';

/**
 * Resuming change streams (the MongoDB adapter's watchResumably), on fake driver streams: which
 * options each stream is opened with, and when the caches are told that changes were missed.
 */
async function setUp(retryMs = 5, times: Array<Timestamp | undefined | Error> = [], streams = 1) {
  const fake = fakeWatchable();
  fake.nextTimes.push(...times);
  const changes: unknown[] = [];
  /** What happened, in order: 'time' read, 'missed', 'open'. */
  const steps: string[] = [];
  let missed = 0;
  const { logger, records } = captureLogs();
  const watch = watchResumably({
    open: (from) => {
      steps.push('open');
      return fake.collection.watch([{ $match: {} }], { fullDocument: 'updateLookup', ...from });
    },
    operationTime: () => {
      steps.push('time');
      return fake.operationTime();
    },
    onChange: (event) => changes.push(event._id),
    onMissed: () => {
      steps.push('missed');
      missed += 1;
    },
    name: 'test',
    fallback: 'caches rely on their TTL',
    logger,
    retryMs,
  });
  if (streams > 0) await fake.openedCount(streams);
  return { ...fake, changes, steps, missed: () => missed, watch, records };
}

const update = (n: number): WatchedEvent => ({
  _id: token(n),
  operationType: 'update',
  documentKey: { _id: n },
});

const emit = (stream: FakeStream, event: string, value?: unknown) => stream.emit(event, value);

describe('a change stream that fails is resumed from its last token', () => {
  it('opens at the server’s operation time, read first, dropping once what was cached before it', async () => {
    const t = await setUp();
    expect(t.opened.map((o) => o.options)).toEqual([
      { fullDocument: 'updateLookup', startAtOperationTime: opTime(1) },
    ]);
    // What was read before that time goes before the stream opens; what is read after it is at
    // least that recent, and the stream hears every change from that time on.
    expect(t.steps).toEqual(['time', 'missed', 'open']);
    emit(t.latest(), 'change', update(1));
    expect(t.changes).toEqual([token(1)]);
    expect(t.missed()).toBe(1);
    await t.watch.close();
  });

  it('reads the time again when it could not (server unreachable), opening nothing meanwhile', async () => {
    const t = await setUp(20, [networkError()], 0);
    await waitFor(() => t.timeReads() === 1);
    await pause(5);
    expect(t.opened).toHaveLength(0);
    expect(t.missed()).toBe(0);
    await t.openedCount(1);
    expect(t.timeReads()).toBe(2);
    expect(t.opened[0]?.options.startAtOperationTime).toEqual(opTime(2));
    expect(t.records().map((line) => line.msg)).toEqual([
      'test change stream cannot start: trying again',
    ]);
    await t.watch.close();
  });

  it('opens nothing when closed while the time is read', async () => {
    const fake = fakeWatchable();
    let answer!: (time: Timestamp) => void;
    let missed = 0;
    const watch = watchResumably({
      open: (from) => fake.collection.watch([], { ...from }),
      operationTime: () => new Promise((resolve) => (answer = resolve)),
      onChange: () => undefined,
      onMissed: () => (missed += 1),
      name: 'test',
      fallback: 'caches rely on their TTL',
      retryMs: 5,
    });
    await watch.close();
    answer(opTime(1));
    await pause(20);
    expect(fake.opened).toHaveLength(0);
    expect(missed).toBe(0);
  });

  it('reopens with resumeAfter set to the last change’s token, dropping nothing', async () => {
    const t = await setUp();
    const first = t.latest();
    emit(first, 'change', update(1));
    emit(first, 'change', update(2));
    emit(first, 'error', serverError(1, 'internal error'));
    expect(first.closed).toBe(true);
    await waitFor(() => t.opened.length === 2);
    expect(t.opened[1]?.options).toEqual({ fullDocument: 'updateLookup', resumeAfter: token(2) });
    expect(t.missed()).toBe(1);
    // The resumed stream goes on: its changes are heard and its tokens kept.
    emit(t.latest(), 'change', update(3));
    emit(t.latest(), 'error', networkError());
    await waitFor(() => t.opened.length === 3);
    expect(t.opened[2]?.options.resumeAfter).toEqual(token(3));
    expect(t.changes).toEqual([token(1), token(2), token(3)]);
    expect(t.missed()).toBe(1);
    await t.watch.close();
  });

  it('resumes from the newer token the server gives after a quiet batch', async () => {
    const t = await setUp();
    emit(t.latest(), 'change', update(1));
    emit(t.latest(), 'resumeTokenChanged', token(7));
    emit(t.latest(), 'error', networkError());
    await waitFor(() => t.opened.length === 2);
    expect(t.opened[1]?.options).toEqual({ fullDocument: 'updateLookup', resumeAfter: token(7) });
    await t.watch.close();
  });

  it('keeps resuming while the server is unreachable, never dropping everything', async () => {
    const t = await setUp();
    emit(t.latest(), 'change', update(1));
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      emit(t.latest(), 'error', networkError());
      await waitFor(() => t.opened.length === attempt + 1);
      expect(t.latest()).not.toBe(t.opened[attempt - 1]?.stream);
    }
    expect(t.opened.slice(1).map((o) => o.options.resumeAfter)).toEqual([
      token(1),
      token(1),
      token(1),
    ]);
    expect(t.missed()).toBe(1);
    await t.watch.close();
  });

  it('without any token yet, reopens from now and drops everything once, as it opens', async () => {
    const t = await setUp(20);
    emit(t.latest(), 'error', serverError(1, 'internal error'));
    expect(t.missed()).toBe(1);
    await waitFor(() => t.opened.length === 2);
    expect(t.opened[1]?.options).toEqual({
      fullDocument: 'updateLookup',
      startAtOperationTime: opTime(2),
    });
    expect(t.missed()).toBe(2);
    await t.watch.close();
  });

  it('backs off, doubling up to a cap, while streams fail before their first token', async () => {
    const t = await setUp(20);
    const openedAt: number[] = [Date.now()];
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      emit(t.latest(), 'error', serverError(1, 'internal error'));
      await waitFor(() => t.opened.length === attempt + 1, 2000);
      openedAt.push(Date.now());
    }
    const gaps = openedAt.slice(1).map((at, i) => at - openedAt[i]!);
    // 20, 40, 80, 160 ms (the cap is far away): each wait at least the one before, doubled.
    expect(gaps[1]!).toBeGreaterThanOrEqual(35);
    expect(gaps[2]!).toBeGreaterThanOrEqual(75);
    expect(gaps[3]!).toBeGreaterThanOrEqual(155);
    // A heard token starts the count again.
    emit(t.latest(), 'change', update(1));
    const before = Date.now();
    emit(t.latest(), 'error', networkError());
    await waitFor(() => t.opened.length === 6, 2000);
    expect(Date.now() - before).toBeLessThan(80);
    await t.watch.close();
  });

  it('stops for good on 13 Unauthorized, logging once: the caches keep their TTL bound', async () => {
    const t = await setUp(5);
    emit(t.latest(), 'error', serverError(13, 'not authorized on shortlink to execute command'));
    await pause(50);
    expect(t.opened).toHaveLength(1);
    expect(t.missed()).toBe(1); // the one drop of the first opening, none after
    expect(t.watch.status?.().state).toBe('unavailable');
    expect(t.records().map((line) => line.msg)).toEqual([
      'test change stream not permitted (13 Unauthorized): caches rely on their TTL',
    ]);
  });
});

describe('what a stream reports of itself (its metrics)', () => {
  it('is open once a stream is opened, failed while it waits to reopen, open again after', async () => {
    const t = await setUp(30);
    expect(t.watch.status?.()).toEqual({ state: 'open' });
    emit(t.latest(), 'change', update(1));
    emit(t.latest(), 'error', networkError());
    expect(t.watch.status?.().state).toBe('failed');
    await waitFor(() => t.opened.length === 2);
    expect(t.watch.status?.().state).toBe('open');
    await t.watch.close();
  });

  it('measures the lag of each event from its wallTime, else its clusterTime', async () => {
    const t = await setUp();
    const stream = t.latest();
    emit(stream, 'change', { ...update(1), wallTime: new Date(Date.now() - 3_000) });
    expect(t.watch.status?.().lagSeconds).toBeCloseTo(3, 0);
    const seconds = Math.floor(Date.now() / 1000) - 7;
    emit(stream, 'change', {
      ...update(2),
      clusterTime: new Timestamp({ t: seconds, i: 1 }),
    });
    expect(t.watch.status?.().lagSeconds).toBeGreaterThanOrEqual(6);
    expect(t.watch.status?.().lagSeconds).toBeLessThan(9);
    await t.watch.close();
  });

  it('is unavailable where change streams are unsupported', async () => {
    const t = await setUp(1, [undefined]);
    emit(t.latest(), 'error', serverError(40573, 'only supported on replica sets'));
    expect(t.watch.status?.().state).toBe('unavailable');
  });
});

describe('when resuming is impossible', () => {
  it.each([
    [
      286,
      'Resume of change stream was not possible, as the resume point may no longer be in the oplog',
    ],
    [280, 'resume token was not found'],
    [260, 'Invalid resume token'],
  ])('error %i: drops everything once and follows from now', async (code, message) => {
    // The retry delay is long: a stream that cannot resume is replaced at once.
    const u = await setUp(10_000);
    emit(u.latest(), 'change', update(1));
    // What the driver emits when its own resume after a lost connection is refused.
    emit(u.latest(), 'error', serverError(code, message));
    await waitFor(() => u.opened.length === 2, 500);
    expect(u.opened[1]?.options).toEqual({
      fullDocument: 'updateLookup',
      startAtOperationTime: opTime(2),
    });
    expect(u.missed()).toBe(2);
    const warned = u.records().filter((line) => /cannot resume/.test(String(line.msg)));
    expect(warned).toHaveLength(1);
    // From now on, the new stream's tokens are the ones resumed from.
    emit(u.latest(), 'change', update(9));
    emit(u.latest(), 'error', serverError(code, message));
    await waitFor(() => u.opened.length === 3, 500);
    expect(u.opened[2]?.options).toEqual({
      fullDocument: 'updateLookup',
      startAtOperationTime: opTime(3),
    });
    expect(u.missed()).toBe(3);
    await u.watch.close();
  });

  it('a server that refuses a resumed stream before it gave anything is taken to have lost the token', async () => {
    const t = await setUp();
    emit(t.latest(), 'change', update(1));
    emit(t.latest(), 'error', networkError());
    await waitFor(() => t.opened.length === 2);
    emit(t.latest(), 'error', serverError(136, 'CappedPositionLost'));
    await waitFor(() => t.opened.length === 3);
    expect(t.opened[2]?.options).toEqual({
      fullDocument: 'updateLookup',
      startAtOperationTime: opTime(2),
    });
    expect(t.missed()).toBe(2);
    await t.watch.close();
  });

  it('an invalidate event (the collection dropped) drops everything and starts after it', async () => {
    const t = await setUp(1000);
    emit(t.latest(), 'change', update(1));
    emit(t.latest(), 'change', { _id: token(2), operationType: 'invalidate' });
    expect(t.changes).toEqual([token(1)]);
    expect(t.missed()).toBe(2);
    expect(t.opened[0]?.stream.closed).toBe(true);
    await waitFor(() => t.opened.length === 2);
    expect(t.opened[1]?.options).toEqual({ fullDocument: 'updateLookup', startAfter: token(2) });
    await t.watch.close();
  });
});

describe('streams that end or cannot run', () => {
  it('a stream the server ended without an error is reopened from its last token', async () => {
    const t = await setUp();
    emit(t.latest(), 'change', update(4));
    t.latest().endSilently();
    await waitFor(() => t.opened.length === 2);
    expect(t.opened[1]?.options.resumeAfter).toEqual(token(4));
    expect(t.missed()).toBe(1);
    await t.watch.close();
  });

  it('a close the driver follows with a new cursor (its own resume) is left to the driver', async () => {
    const t = await setUp();
    const stream = t.latest();
    emit(stream, 'change', update(1));
    stream.emit('close');
    // The driver's resume replaced the cursor: the stream is open again.
    await pause(30);
    expect(t.opened).toHaveLength(1);
    expect(stream.closeCalls).toBe(0);
    emit(stream, 'change', update(2));
    expect(t.changes).toEqual([token(1), token(2)]);
    await t.watch.close();
  });

  it('stops for good where change streams are unsupported (standalone server), logging once at info', async () => {
    const t = await setUp(1, [undefined]);
    emit(
      t.latest(),
      'error',
      serverError(40573, 'The $changeStream stage is only supported on replica sets'),
    );
    await pause(30);
    expect(t.opened).toHaveLength(1);
    expect(t.latest().closed).toBe(true);
    expect(t.missed()).toBe(0);
    expect(t.records().map((line) => [line.level, line.msg])).toEqual([
      [30, 'MongoDB change streams unavailable (not a replica set): caches rely on their TTL'],
    ]);
  });

  it('handles an error and the close that follows it once', async () => {
    const t = await setUp();
    emit(t.latest(), 'change', update(1));
    emit(t.latest(), 'error', networkError());
    t.opened[0]?.stream.emit('close');
    await pause(40);
    expect(t.opened).toHaveLength(2);
  });

  it('neither reopens nor reports once closed', async () => {
    const t = await setUp();
    const stream = t.latest();
    await t.watch.close();
    expect(stream.closed).toBe(true);
    emit(stream, 'error', networkError());
    emit(stream, 'change', update(1));
    await pause(30);
    expect(t.opened).toHaveLength(1);
    expect(t.changes).toEqual([]);
  });
});

describe('the server’s operation time a stream from now starts at', () => {
  const db = (reply: Record<string, unknown>) => {
    const sent: unknown[] = [];
    return {
      sent,
      db: {
        command: (command: unknown) => {
          sent.push(command);
          return Promise.resolve({ ok: 1, ...reply });
        },
      } as unknown as Pick<Db, 'command'>,
    };
  };

  it('is a ping’s operationTime, else the cluster time it gossips, else none (standalone)', async () => {
    const replicaSet = db({ operationTime: opTime(5), $clusterTime: { clusterTime: opTime(6) } });
    await expect(serverOperationTime(replicaSet.db)).resolves.toEqual(opTime(5));
    expect(replicaSet.sent).toEqual([{ ping: 1 }]);
    await expect(
      serverOperationTime(db({ $clusterTime: { clusterTime: opTime(6) } }).db),
    ).resolves.toEqual(opTime(6));
    await expect(serverOperationTime(db({}).db)).resolves.toBeUndefined();
  });
});
