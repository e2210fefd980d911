import { EventEmitter } from 'node:events';
import { MongoServerError, type Db } from 'mongodb';
import type { IdentityChange } from '../../core';
import { watchIdentityChanges } from '../../core/adapters/mongodb/identity-change-stream';
import { captureLogs } from '../support/log-capture';

/** A change stream as the driver's emits: 'change' and 'error' events, close(). */
class FakeStream extends EventEmitter {
  closed = false;
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

/** A Db whose watch() hands out fake streams and records the pipelines it was given. */
function fakeDb() {
  const streams: FakeStream[] = [];
  const pipelines: unknown[] = [];
  const db = {
    watch: (pipeline: unknown) => {
      pipelines.push(pipeline);
      const stream = new FakeStream();
      streams.push(stream);
      return stream;
    },
  } as unknown as Pick<Db, 'watch'>;
  return { db, streams, pipelines };
}

const change = (coll: string) => ({ operationType: 'update', ns: { db: 'shortlink', coll } });

function serverError(code: number, message: string): MongoServerError {
  return new MongoServerError({ message, code, ok: 0 });
}

describe('identity change stream (MongoDB adapter, on a fake Db)', () => {
  it('watches only the identity collections and reports which one changed', async () => {
    const { db, streams, pipelines } = fakeDb();
    const heard: IdentityChange[] = [];
    const watch = watchIdentityChanges(db, (c) => heard.push(c));
    expect(pipelines).toEqual([
      [{ $match: { 'ns.coll': { $in: ['tokens', 'organizations', 'memberships', 'groups'] } } }],
    ]);
    for (const coll of ['organizations', 'tokens', 'memberships', 'groups']) {
      streams[0]!.emit('change', change(coll));
    }
    streams[0]!.emit('change', { operationType: 'invalidate' });
    expect(heard).toEqual(['organizations', 'tokens', 'memberships', 'groups', 'all']);
    await watch.close();
    expect(streams[0]!.closed).toBe(true);
  });

  it('falls back silently to the TTL where change streams are unsupported (standalone server)', async () => {
    const { db, streams } = fakeDb();
    const { logger, records } = captureLogs();
    const heard: IdentityChange[] = [];
    watchIdentityChanges(db, (c) => heard.push(c), { logger, retryMs: 1 });
    streams[0]!.emit(
      'error',
      serverError(40573, 'The $changeStream stage is only supported on replica sets'),
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(streams).toHaveLength(1);
    expect(streams[0]!.closed).toBe(true);
    expect(heard).toEqual([]);
    const info = records().filter((line) => /change streams unavailable/.test(String(line.msg)));
    expect(info).toHaveLength(1);
    // Logged at info: an expected set-up, not a fault (pino level 30).
    expect(records().map((line) => line.level)).toEqual([30]);
  });

  it('clears everything and reopens after another failure (changes may have been missed)', async () => {
    const { db, streams } = fakeDb();
    const heard: IdentityChange[] = [];
    const watch = watchIdentityChanges(db, (c) => heard.push(c), { retryMs: 5 });
    streams[0]!.emit('error', serverError(13, 'not authorized'));
    expect(heard).toEqual(['all']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(streams).toHaveLength(2);
    expect(heard).toEqual(['all', 'all']);
    streams[1]!.emit('change', change('groups'));
    expect(heard.at(-1)).toBe('groups');
    await watch.close();
    expect(streams[1]!.closed).toBe(true);
  });

  it('does not reopen once closed', async () => {
    const { db, streams } = fakeDb();
    const watch = watchIdentityChanges(db, () => undefined, { retryMs: 5 });
    await watch.close();
    streams[0]!.emit('error', serverError(13, 'not authorized'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(streams).toHaveLength(1);
  });
});
