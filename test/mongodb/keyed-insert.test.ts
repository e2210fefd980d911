import { MongoNetworkError, type Collection } from 'mongodb';
import {
  createMemoryStore,
  ErrorCode,
  type CompletedRecord,
  type LinkRecord,
  type ResponseInfo,
  type RunningRecord,
  type ShortLink,
  type Store,
} from '../../core';
import type { HistoryDocument, LinkDocument } from '../../core/adapters/mongodb/documents';
import { MongoIdSequence } from '../../core/adapters/mongodb/mongo-id-sequence';
import {
  idempotencyDocumentId,
  MongoIdempotencyStore,
} from '../../core/adapters/mongodb/mongo-idempotency-store';
import { MongoLinkStore } from '../../core/adapters/mongodb/mongo-link-store';
import { newLink } from '../storage/fixtures';
import { createTestCore, type CoreFixture } from '../support/core-fixture';
import { heldCalls } from '../support/held-url-guard';
import { manualClock } from '../support/idempotency';
import { fakeCounters, FakeLinks, FakeRecords } from './fake-keyed-collections';

/**
 * One key never makes two links on MongoDB either, though the link and its idempotency record are
 * two documents and a standalone server has no transactions: the keyed insert's conditional
 * writes (mongo-keyed-insert.ts) against fake collections that answer as the server does, with
 * pauses and lost answers put exactly between two writes. The MongoDB link and idempotency
 * adapters run over the fakes; identities come from the memory store.
 */
function mongoOnFakes() {
  const records = new FakeRecords();
  const links = new FakeLinks();
  const linkStore = new MongoLinkStore(
    links.asCollection(),
    new MongoIdSequence(fakeCounters()),
    // Not used by a create.
    {} as unknown as Collection<HistoryDocument>,
    records.asCollection(),
  );
  const idempotency = new MongoIdempotencyStore(records.asCollection(), links.asCollection());
  const store: Store = {
    ...createMemoryStore(),
    kind: 'mongodb-fakes',
    links: linkStore,
    idempotency,
  };
  return { store, records, links, linkStore, idempotency };
}

function keyedCreate(f: CoreFixture<Store>, key: string, body = f.body()) {
  const response: ResponseInfo = {};
  return f
    .caller({ idempotencyKey: key, response })
    .links.create(body as never)
    .then(
      (link: ShortLink) => ({ link, code: 0, response }),
      (error: { code?: number }) => ({ link: undefined, code: error.code, response }),
    );
}

const lostAnswer = () => new MongoNetworkError('connection reset');

describe('a keyed create on MongoDB (fake collections) through the core', () => {
  it('a request paused past its lease stores nothing once a retry completed: its mark is refused', async () => {
    const mongo = mongoOnFakes();
    const clock = manualClock();
    const guard = heldCalls([0]);
    const f = await createTestCore({ store: mongo.store, clock, urlGuard: guard.guard });
    const paused = keyedCreate(f, 'paused');
    await guard.reached(1);
    clock.advanceSeconds(61);
    const retry = await keyedCreate(f, 'paused');
    expect(retry.code).toBe(0);
    guard.release(0);
    const late = await paused;
    expect([late.link, late.response.idempotentReplayed]).toEqual([retry.link, true]);
    expect(mongo.links.documents.size).toBe(1);
    // The paused request's one write was its pending-link mark, which matched nothing: the record
    // it names is the retry's owner's, completed.
    const marks = mongo.records.calls.filter((call) => call.method === 'updateOne');
    expect(marks).toHaveLength(2);
    expect(mongo.links.methods()).toEqual(['insertOne']);
  });

  it('a request stopped after its pending link (the insert never arrived) is finished by the retry', async () => {
    const mongo = mongoOnFakes();
    const f = await createTestCore({ store: mongo.store });
    mongo.links.failNext.insertOne = [{ error: lostAnswer() }];
    const failed = await keyedCreate(f, 'stopped');
    expect(failed.code).toBe(ErrorCode.BACKEND_UNAVAILABLE);
    // The 23 released nothing: the record keeps the link it was inserting.
    const record = mongo.records.record(idempotencyDocumentId({ userId: 'alice', key: 'stopped' }));
    expect(record).toMatchObject({ state: 'running', pending: { link: { _id: 1 } } });
    expect(mongo.links.documents.size).toBe(0);
    const retry = await keyedCreate(f, 'stopped');
    // The retry inserted that very link (id 1), and answers it as the recorded answer.
    expect([retry.code, retry.link?.id, retry.response.idempotentReplayed]).toEqual([0, 1, true]);
    expect(mongo.links.documents.size).toBe(1);
    const again = await keyedCreate(f, 'stopped');
    expect([again.link, again.response.idempotentReplayed]).toEqual([retry.link, true]);
    expect(mongo.links.documents.size).toBe(1);
  });

  it('an insert whose answer was lost is found by the retry, not made twice', async () => {
    const mongo = mongoOnFakes();
    const f = await createTestCore({ store: mongo.store });
    mongo.links.failNext.insertOne = [{ error: lostAnswer(), applied: true }];
    expect((await keyedCreate(f, 'lost-answer')).code).toBe(ErrorCode.BACKEND_UNAVAILABLE);
    expect(mongo.links.documents.size).toBe(1);
    const retry = await keyedCreate(f, 'lost-answer');
    expect([retry.code, retry.link?.id, retry.response.idempotentReplayed]).toEqual([0, 1, true]);
    expect(mongo.links.documents.size).toBe(1);
  });

  it('a request paused between its pending link and its insert: the retry finishes it, both answer one link', async () => {
    const mongo = mongoOnFakes();
    const f = await createTestCore({ store: mongo.store });
    const hold = mongo.links.holdNext('insertOne');
    const paused = keyedCreate(f, 'between');
    await hold.reached;
    const retry = await keyedCreate(f, 'between');
    expect([retry.code, retry.response.idempotentReplayed]).toEqual([0, true]);
    hold.release();
    const late = await paused;
    // Its own insert met its own link (the same id) and counts as done.
    expect([late.code, late.link]).toEqual([0, retry.link]);
    expect(mongo.links.documents.size).toBe(1);
    const again = await keyedCreate(f, 'between');
    expect(again.link).toEqual(retry.link);
    // Every links operation, the lookup that tells its own link from another, names the shard key.
    for (const call of mongo.links.calls) {
      expect(call.args[0]).toMatchObject({ domain: 'acme.link', alias: retry.link?.alias });
    }
    expect(mongo.links.methods()).toEqual(['insertOne', 'insertOne', 'findOne']);
  });

  it('refuses another request under a key whose pending link is unfinished (25) and leaves it', async () => {
    const mongo = mongoOnFakes();
    const f = await createTestCore({ store: mongo.store });
    mongo.links.failNext.insertOne = [{ error: lostAnswer() }];
    expect((await keyedCreate(f, 'other')).code).toBe(ErrorCode.BACKEND_UNAVAILABLE);
    const other = await keyedCreate(f, 'other', f.body({ url: 'https://example.com/else' }));
    expect(other.code).toBe(ErrorCode.IDEMPOTENCY_KEY_REUSED);
    expect(mongo.links.documents.size).toBe(0);
    expect((await keyedCreate(f, 'other')).link?.id).toBe(1);
  });
});

describe('the MongoDB keyed insert and claim (fake collections)', () => {
  const SCOPE = { userId: 'alice', key: 'k' };
  const ID = idempotencyDocumentId(SCOPE);
  const NOW = new Date('2099-01-01T00:00:00.000Z');
  const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
  const running = (owner: string, seconds = 60): RunningRecord => ({
    state: 'running',
    owner,
    fingerprint: 'f'.repeat(64),
    expiresAt: later(seconds),
  });
  const answerFor = (link: LinkRecord): CompletedRecord => ({
    state: 'completed',
    fingerprint: 'f'.repeat(64),
    outcome: { code: 0, body: JSON.stringify({ id: link.id }) },
    expiresAt: later(86_400),
  });
  const completion = (owner: string) => ({ scope: SCOPE, owner, completed: answerFor });

  it('marks, inserts and completes, each conditional on the owner', async () => {
    const mongo = mongoOnFakes();
    await mongo.idempotency.claim(SCOPE, running('owner'), NOW);
    const stored = await mongo.linkStore.insertCompleting(newLink(), completion('owner'));
    expect(stored).toEqual({ ...newLink(), id: 1 });
    const [, mark, complete] = mongo.records.calls;
    expect(mark).toEqual({
      method: 'updateOne',
      args: [
        { _id: ID, state: 'running', owner: 'owner' },
        {
          $set: {
            pending: {
              link: { _id: 1, ...newLink() },
              outcome: answerFor({ ...newLink(), id: 1 }).outcome,
            },
            expiresAt: later(86_400),
          },
        },
      ],
    });
    expect(complete).toEqual({
      method: 'replaceOne',
      args: [
        { _id: ID, state: 'running', owner: 'owner', 'pending.link._id': 1 },
        answerFor({ ...newLink(), id: 1 }),
        undefined,
      ],
    });
    expect(mongo.records.record(ID)).toEqual({ _id: ID, ...answerFor({ ...newLink(), id: 1 }) });
  });

  it('answers claim_lost without touching the links when the claim is another’s or gone', async () => {
    const mongo = mongoOnFakes();
    await mongo.idempotency.claim(SCOPE, running('paused'), NOW);
    await mongo.idempotency.claim(SCOPE, running('retry', 120), later(61));
    await expect(mongo.linkStore.insertCompleting(newLink(), completion('paused'))).resolves.toBe(
      'claim_lost',
    );
    await mongo.idempotency.release(SCOPE, 'retry');
    await expect(mongo.linkStore.insertCompleting(newLink(), completion('retry'))).resolves.toBe(
      'claim_lost',
    );
    expect(mongo.links.calls).toEqual([]);
  });

  it('takes the key over when the pending link’s alias went to another link', async () => {
    const mongo = mongoOnFakes();
    await mongo.idempotency.claim(SCOPE, running('stuck'), NOW);
    // The stuck request marked its link, then stopped; meanwhile another link took the alias.
    const hold = mongo.links.holdNext('insertOne');
    const stuck = mongo.linkStore.insertCompleting(newLink(), completion('stuck'));
    await hold.reached;
    const other: LinkDocument = { _id: 99, ...newLink({ url: 'https://example.com/other' }) };
    mongo.links.documents.set(99, other);
    await expect(mongo.idempotency.claim(SCOPE, running('retry'), later(1))).resolves.toEqual({
      claimed: true,
    });
    expect(mongo.records.record(ID)).toEqual({ _id: ID, ...running('retry') });
    hold.release();
    // The stuck request's own insert found the alias taken; its next mark is refused.
    await expect(stuck).resolves.toBe('alias_taken');
    await expect(
      mongo.linkStore.insertCompleting(newLink({ alias: 'another' }), completion('stuck')),
    ).resolves.toBe('claim_lost');
    expect([...mongo.links.documents.keys()]).toEqual([99]);
  });

  it('leaves a record holding a pending link on release, and renews only the owner’s lease', async () => {
    const mongo = mongoOnFakes();
    await mongo.idempotency.claim(SCOPE, running('owner'), NOW);
    await expect(mongo.idempotency.renew(SCOPE, 'other', later(500))).resolves.toBe(false);
    await expect(mongo.idempotency.renew(SCOPE, 'owner', later(120))).resolves.toBe(true);
    expect(mongo.records.calls.at(-1)).toEqual({
      method: 'updateOne',
      args: [{ _id: ID, state: 'running', owner: 'owner' }, { $max: { expiresAt: later(120) } }],
    });
    await mongo.idempotency.renew(SCOPE, 'owner', later(90));
    expect(mongo.records.record(ID)?.expiresAt).toEqual(later(120));

    mongo.links.failNext.insertOne = [{ error: lostAnswer() }];
    await expect(mongo.linkStore.insertCompleting(newLink(), completion('owner'))).rejects.toThrow(
      /unavailable/,
    );
    await mongo.idempotency.release(SCOPE, 'owner');
    expect(mongo.records.calls.at(-1)).toEqual({
      method: 'deleteOne',
      args: [{ _id: ID, state: 'running', owner: 'owner', pending: { $exists: false } }],
    });
    expect(mongo.records.record(ID)).toMatchObject({ state: 'running', pending: {} });
  });
});
