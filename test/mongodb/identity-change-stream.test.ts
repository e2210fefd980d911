import { ObjectId } from 'mongodb';
import type { IdentityChange } from '../../core';
import {
  IDENTITY_PIPELINE,
  watchIdentityChanges,
} from '../../core/adapters/mongodb/identity-change-stream';
import { captureLogs } from '../support/log-capture';
import { fakeWatchable, opTime, pause, serverError, token, waitFor } from './fake-change-streams';

/** An event as the identity pipeline leaves it (its projection applied). */
const event = (coll: string, n: number, extra: Record<string, unknown> = {}) => ({
  _id: token(n),
  operationType: 'update',
  ns: { db: 'shortlink', coll },
  ...extra,
});

describe('identity change stream (MongoDB adapter, on a fake Db)', () => {
  it('watches the identity collections, looking up the documents updates touch', async () => {
    const { db, opened, operationTime, openedCount } = fakeWatchable();
    const watch = watchIdentityChanges(db, () => undefined, { operationTime });
    await openedCount(1);
    expect(opened.map(({ pipeline, options }) => ({ pipeline, options }))).toEqual([
      {
        pipeline: [
          {
            $match: {
              // Applied by the server first: link inserts and every insert stay there (no
              // cache keeps a miss, so a new document concerns none).
              $or: [
                {
                  'ns.coll': { $in: ['tokens', 'organizations', 'memberships', 'groups'] },
                  operationType: { $in: ['update', 'replace', 'delete', 'drop', 'rename'] },
                },
                { operationType: { $in: ['dropDatabase', 'invalidate'] } },
              ],
            },
          },
          {
            $project: {
              operationType: 1,
              clusterTime: 1,
              wallTime: 1,
              ns: 1,
              documentKey: 1,
              'fullDocument.keyHash': 1,
              'fullDocument.tokenHash': 1,
              'fullDocument.userId': 1,
              'fullDocument.organizationId': 1,
              'fullDocument.apiId': 1,
            },
          },
        ],
        options: { fullDocument: 'updateLookup', startAtOperationTime: opTime(1) },
      },
    ]);
    expect(opened[0]?.pipeline).toBe(IDENTITY_PIPELINE);
    await watch.close();
  });

  it('reports an organization by its id and key hash', async () => {
    const { db, latest, operationTime, openedCount } = fakeWatchable();
    const heard: IdentityChange[] = [];
    const watch = watchIdentityChanges(db, (c) => heard.push(c), { operationTime });
    await openedCount(1);
    // Opening from the server's time drops what was cached before it, once.
    expect(heard.splice(0)).toEqual(['all']);
    const keyHash = 'b'.repeat(64);
    latest().emit(
      'change',
      event('organizations', 1, { documentKey: { _id: 'acme' }, fullDocument: { keyHash } }),
    );
    // A deletion carries no document: the id alone.
    latest().emit(
      'change',
      event('organizations', 2, { operationType: 'delete', documentKey: { _id: 'gone' } }),
    );
    // The collection dropped: no document key, every organization.
    latest().emit('change', event('organizations', 3, { operationType: 'drop' }));
    latest().emit('change', { _id: token(9), operationType: 'dropDatabase', ns: { db: 'x' } });
    expect(heard).toEqual([
      { kind: 'organization', id: 'acme', keyHash },
      { kind: 'organization', id: 'gone' },
      'organizations',
      'all',
    ]);
    await watch.close();
  });

  it('reports a token, a membership or a group by its key, from its document or its _id', async () => {
    const { db, latest, operationTime, openedCount } = fakeWatchable();
    const heard: IdentityChange[] = [];
    const watch = watchIdentityChanges(db, (c) => heard.push(c), { operationTime });
    await openedCount(1);
    // Opening from the server's time drops what was cached before it, once.
    expect(heard.splice(0)).toEqual(['all']);
    const hash = 'd'.repeat(64);
    const membership = { userId: 'alice', organizationId: 'acme' };
    const group = { organizationId: 'acme', apiId: '7' };
    const legacyId = new ObjectId();
    const events = [
      // Inserts and updates: the document as it now is.
      event('tokens', 1, {
        operationType: 'insert',
        documentKey: { _id: hash },
        fullDocument: { tokenHash: hash, userId: 'alice' },
      }),
      event('memberships', 2, {
        operationType: 'insert',
        documentKey: { _id: membership },
        fullDocument: membership,
      }),
      event('groups', 3, { documentKey: { _id: legacyId }, fullDocument: group }),
      // Deletions (a revoked token, a membership or group removed by hand): the `_id` this
      // version gives them.
      event('tokens', 4, { operationType: 'delete', documentKey: { _id: hash } }),
      event('memberships', 5, { operationType: 'delete', documentKey: { _id: membership } }),
      event('groups', 6, { operationType: 'delete', documentKey: { _id: group } }),
      // A document written before (an ObjectId), deleted: which entry it was is unknown.
      event('tokens', 7, { operationType: 'delete', documentKey: { _id: legacyId } }),
      event('memberships', 8, { operationType: 'delete', documentKey: { _id: legacyId } }),
      // An update whose document is gone by the time it is looked up.
      event('groups', 9, { documentKey: { _id: legacyId }, fullDocument: null }),
    ];
    for (const change of events) latest().emit('change', change);
    expect(heard).toEqual([
      { kind: 'token', tokenHash: hash },
      { kind: 'membership', ...membership },
      { kind: 'group', ...group },
      { kind: 'token', tokenHash: hash },
      { kind: 'membership', ...membership },
      { kind: 'group', ...group },
      'tokens',
      'memberships',
      'groups',
    ]);
    await watch.close();
  });

  it('reopens a failed stream with resumeAfter set to the last token seen, clearing nothing', async () => {
    const { db, opened, latest, operationTime, openedCount } = fakeWatchable();
    const heard: IdentityChange[] = [];
    const watch = watchIdentityChanges(db, (c) => heard.push(c), { operationTime, retryMs: 5 });
    await openedCount(1);
    expect(heard.splice(0)).toEqual(['all']);
    latest().emit('change', event('groups', 1));
    latest().emit('change', event('tokens', 2));
    latest().emit('error', serverError(1, 'internal error'));
    await waitFor(() => opened.length === 2);
    expect(opened[1]?.options).toEqual({ fullDocument: 'updateLookup', resumeAfter: token(2) });
    expect(heard).toEqual(['groups', 'tokens']);
    latest().emit('change', event('memberships', 3));
    expect(heard.at(-1)).toBe('memberships');
    await watch.close();
    expect(latest().closed).toBe(true);
  });

  it('clears everything once when the server can no longer resume (oplog moved past the token)', async () => {
    const { db, opened, latest, operationTime, openedCount } = fakeWatchable();
    const heard: IdentityChange[] = [];
    const watch = watchIdentityChanges(db, (c) => heard.push(c), { operationTime, retryMs: 5 });
    await openedCount(1);
    expect(heard.splice(0)).toEqual(['all']);
    latest().emit('change', event('groups', 1));
    latest().emit('error', serverError(286, 'the resume point may no longer be in the oplog'));
    await waitFor(() => opened.length === 2);
    expect(opened[1]?.options).toEqual({
      fullDocument: 'updateLookup',
      startAtOperationTime: opTime(2),
    });
    expect(heard).toEqual(['groups', 'all']);
    await watch.close();
  });

  it('falls back silently to the TTL where change streams are unsupported (standalone server)', async () => {
    const { db, opened, latest, operationTime, openedCount, nextTimes } = fakeWatchable();
    const { logger, records } = captureLogs();
    const heard: IdentityChange[] = [];
    // A standalone server's ping carries no operation time.
    nextTimes.push(undefined);
    watchIdentityChanges(db, (c) => heard.push(c), { operationTime, logger, retryMs: 1 });
    await openedCount(1);
    latest().emit(
      'error',
      serverError(40573, 'The $changeStream stage is only supported on replica sets'),
    );
    await pause(30);
    expect(opened).toHaveLength(1);
    expect(latest().closed).toBe(true);
    expect(heard).toEqual([]);
    const info = records().filter((line) => /change streams unavailable/.test(String(line.msg)));
    expect(info).toHaveLength(1);
    expect(String(info[0]?.msg)).toMatch(/IDENTITY_CACHE_TTL_SECONDS/);
    // Logged at info: an expected set-up, not a fault (pino level 30).
    expect(records().map((line) => line.level)).toEqual([30]);
  });

  it('does not reopen once closed', async () => {
    const { db, opened, latest, operationTime, openedCount } = fakeWatchable();
    const watch = watchIdentityChanges(db, () => undefined, { operationTime, retryMs: 5 });
    await openedCount(1);
    await watch.close();
    latest().emit('error', serverError(13, 'not authorized'));
    await pause(30);
    expect(opened).toHaveLength(1);
  });
});
