import type { LinkChange } from '../../core';
import { LINK_PIPELINE, watchLinkChanges } from '../../core/adapters/mongodb/link-change-stream';
import { captureLogs } from '../support/log-capture';
import {
  fakeWatchable,
  networkError,
  pause,
  serverError,
  token,
  waitFor,
} from './fake-change-streams';

describe('link change stream (MongoDB adapter, on a fake collection)', () => {
  it('watches links without its inserts, keeping only domain and alias of the looked-up document', async () => {
    const { collection, opened } = fakeWatchable();
    const watch = watchLinkChanges(collection, () => undefined);
    expect(opened.map(({ pipeline, options }) => ({ pipeline, options }))).toEqual([
      {
        pipeline: [
          { $match: { operationType: { $ne: 'insert' } } },
          {
            $project: {
              operationType: 1,
              documentKey: 1,
              'fullDocument.domain': 1,
              'fullDocument.alias': 1,
            },
          },
        ],
        options: { fullDocument: 'updateLookup' },
      },
    ]);
    expect(opened[0]?.pipeline).toBe(LINK_PIPELINE);
    await watch.close();
  });

  it('reports the link an update touched by domain and alias', async () => {
    const { collection, latest } = fakeWatchable();
    const heard: LinkChange[] = [];
    const watch = watchLinkChanges(collection, (c) => heard.push(c));
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
      { domain: 'acme.link', alias: 'promo' },
      { domain: 'acme.link', alias: 'Promo' },
      'all',
    ]);
    await watch.close();
  });

  it('reopens a failed stream with resumeAfter set to the last token seen', async () => {
    const { collection, opened, latest } = fakeWatchable();
    const heard: LinkChange[] = [];
    const watch = watchLinkChanges(collection, (c) => heard.push(c), { retryMs: 5 });
    latest().emit('change', {
      _id: token(1),
      operationType: 'update',
      fullDocument: { domain: 'acme.link', alias: 'a' },
    });
    latest().emit('error', networkError());
    await waitFor(() => opened.length === 2);
    expect(opened[1]?.options).toEqual({ fullDocument: 'updateLookup', resumeAfter: token(1) });
    expect(heard).toEqual([{ domain: 'acme.link', alias: 'a' }]);
    await watch.close();
  });

  it('drops every link once when resuming is impossible', async () => {
    const { collection, opened, latest } = fakeWatchable();
    const heard: LinkChange[] = [];
    const watch = watchLinkChanges(collection, (c) => heard.push(c), { retryMs: 5 });
    latest().emit('resumeTokenChanged', token(4));
    latest().emit('error', serverError(286, 'ChangeStreamHistoryLost'));
    await waitFor(() => opened.length === 2);
    expect(opened[1]?.options).toEqual({ fullDocument: 'updateLookup' });
    expect(heard).toEqual(['all']);
    await watch.close();
  });

  it('relies on CHANGE_PROPAGATION_SECONDS where change streams are unsupported', async () => {
    const { collection, opened, latest } = fakeWatchable();
    const { logger, records } = captureLogs();
    watchLinkChanges(collection, () => undefined, { logger, retryMs: 1 });
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
