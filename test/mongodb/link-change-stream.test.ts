import type { LinkChange } from '../../core';
import { LINK_PIPELINE, watchLinkChanges } from '../../core/adapters/mongodb/link-change-stream';
import { captureLogs } from '../support/log-capture';
import {
  fakeWatchable,
  networkError,
  opTime,
  pause,
  serverError,
  token,
  waitFor,
} from './fake-change-streams';

describe('link change stream (MongoDB adapter, on a fake collection)', () => {
  it('watches links without its inserts, keeping only domain and alias of the looked-up document', async () => {
    const { collection, opened, operationTime, openedCount } = fakeWatchable();
    const watch = watchLinkChanges(collection, () => undefined, { operationTime });
    await openedCount(1);
    expect(opened.map(({ pipeline, options }) => ({ pipeline, options }))).toEqual([
      {
        pipeline: [
          {
            $match: {
              operationType: {
                $in: ['update', 'replace', 'delete', 'drop', 'rename', 'invalidate'],
              },
            },
          },
          {
            $project: {
              operationType: 1,
              clusterTime: 1,
              wallTime: 1,
              documentKey: 1,
              'fullDocument.domain': 1,
              'fullDocument.alias': 1,
            },
          },
        ],
        // From the server's time, read first: no change made meanwhile is missed.
        options: { fullDocument: 'updateLookup', startAtOperationTime: opTime(1) },
      },
    ]);
    expect(opened[0]?.pipeline).toBe(LINK_PIPELINE);
    await watch.close();
  });

  it('reports the link an update touched by domain and alias', async () => {
    const { collection, latest, operationTime, openedCount } = fakeWatchable();
    const heard: LinkChange[] = [];
    const watch = watchLinkChanges(collection, (c) => heard.push(c), { operationTime });
    await openedCount(1);
    latest().emit('change', {
      _id: token(1),
      operationType: 'update',
      documentKey: { _id: 7 },
      fullDocument: { domain: 'acme.link', alias: 'promo' },
    });
    // On a cluster sharded on {domain, alias} the document key names the link too.
    latest().emit('change', {
      _id: token(2),
      operationType: 'update',
      documentKey: { _id: 8, domain: 'acme.link', alias: 'Promo' },
      fullDocument: null,
    });
    // A deletion by hand on a replica set names no link: every link goes.
    latest().emit('change', { _id: token(3), operationType: 'delete', documentKey: { _id: 9 } });
    expect(heard).toEqual([
      // The first opening: what was cached before the server's time goes.
      'all',
      { domain: 'acme.link', alias: 'promo' },
      { domain: 'acme.link', alias: 'Promo' },
      'all',
    ]);
    await watch.close();
  });

  it('reopens a failed stream with resumeAfter set to the last token seen', async () => {
    const { collection, opened, latest, operationTime, openedCount } = fakeWatchable();
    const heard: LinkChange[] = [];
    const watch = watchLinkChanges(collection, (c) => heard.push(c), {
      operationTime,
      retryMs: 5,
    });
    await openedCount(1);
    latest().emit('change', {
      _id: token(1),
      operationType: 'update',
      fullDocument: { domain: 'acme.link', alias: 'a' },
    });
    latest().emit('error', networkError());
    await waitFor(() => opened.length === 2);
    expect(opened[1]?.options).toEqual({ fullDocument: 'updateLookup', resumeAfter: token(1) });
    expect(heard).toEqual(['all', { domain: 'acme.link', alias: 'a' }]);
    await watch.close();
  });

  it('drops every link once when resuming is impossible', async () => {
    const { collection, opened, latest, operationTime, openedCount } = fakeWatchable();
    const heard: LinkChange[] = [];
    const watch = watchLinkChanges(collection, (c) => heard.push(c), {
      operationTime,
      retryMs: 5,
    });
    await openedCount(1);
    latest().emit('resumeTokenChanged', token(4));
    latest().emit('error', serverError(286, 'ChangeStreamHistoryLost'));
    await waitFor(() => opened.length === 2);
    expect(opened[1]?.options).toEqual({
      fullDocument: 'updateLookup',
      startAtOperationTime: opTime(2),
    });
    expect(heard).toEqual(['all', 'all']);
    await watch.close();
  });

  it('relies on CHANGE_PROPAGATION_SECONDS where change streams are unsupported', async () => {
    const { collection, opened, latest, operationTime, openedCount, nextTimes } = fakeWatchable();
    const { logger, records } = captureLogs();
    // A standalone server's ping carries no operation time.
    nextTimes.push(undefined);
    watchLinkChanges(collection, () => undefined, { operationTime, logger, retryMs: 1 });
    await openedCount(1);
    expect(opened[0]?.options).toEqual({ fullDocument: 'updateLookup' });
    latest().emit('error', serverError(40573, 'only supported on replica sets'));
    await pause(30);
    expect(opened).toHaveLength(1);
    expect(records().map((line) => [line.level, line.msg])).toEqual([
      [
        30,
        'MongoDB change streams unavailable (not a replica set): the link cache relies on CHANGE_PROPAGATION_SECONDS',
      ],
    ]);
  });
});
