import {
  MongoNetworkTimeoutError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoWriteConcernError,
} from 'mongodb';
import { BackendUnavailableError } from '../../core';
import {
  asBackendError,
  isBackendUnavailable,
  isDuplicateKeyOn,
  upsertRacing,
} from '../../core/adapters/mongodb/backend-errors';
import { INDEXES } from '../../core/adapters/mongodb/indexes';

/**
 * How the adapter classifies driver errors. The server-side errors here are the driver's own
 * MongoServerError built from responses shaped as the server sends them (a write error for a
 * duplicate key, a "not primary" reply); the real server run is in test/storage.
 */
const duplicateAlias = () =>
  new MongoServerError({
    code: 11000,
    errmsg:
      'E11000 duplicate key error collection: shortlink.links index: domain_alias_unique dup key: { domain: "acme.link", alias: "promo" }',
    keyPattern: { domain: 1, alias: 1 },
    keyValue: { domain: 'acme.link', alias: 'promo' },
  });

describe('MongoDB error classification', () => {
  it('recognises a duplicate on the alias index by its name', () => {
    expect(isDuplicateKeyOn(duplicateAlias(), INDEXES.linkAlias)).toBe(true);
    expect(isDuplicateKeyOn(duplicateAlias(), INDEXES.tokenHash)).toBe(false);
  });

  it('recognises a duplicate by key pattern when the message names no index', () => {
    const bare = new MongoServerError({
      code: 11000,
      errmsg: 'E11000 duplicate key error',
      keyPattern: { alias: 1, domain: 1 },
    });
    expect(isDuplicateKeyOn(bare, INDEXES.linkAlias)).toBe(true);
    expect(isDuplicateKeyOn(bare, INDEXES.organizationKeyHash)).toBe(false);
  });

  it('does not take a duplicate id for a taken alias', () => {
    const duplicateId = new MongoServerError({
      code: 11000,
      errmsg:
        'E11000 duplicate key error collection: shortlink.links index: _id_ dup key: { _id: 7 }',
      keyPattern: { _id: 1 },
    });
    expect(isDuplicateKeyOn(duplicateId, INDEXES.linkAlias)).toBe(false);
  });

  it('treats network, timeout and "not primary" errors as an unavailable backend', () => {
    expect(isBackendUnavailable(new MongoNetworkTimeoutError('timed out'))).toBe(true);
    expect(isBackendUnavailable(new MongoServerError({ code: 10107, errmsg: 'not primary' }))).toBe(
      true,
    );
    expect(isBackendUnavailable(duplicateAlias())).toBe(false);
    expect(isBackendUnavailable(new Error('bug'))).toBe(false);
  });

  it.each([
    [50, 'MaxTimeMSExpired'],
    [64, 'WriteConcernFailed'],
    [100, 'UnsatisfiableWriteConcern'],
    [262, 'ExceededTimeLimit'],
    [11601, 'Interrupted'],
    [11602, 'InterruptedDueToReplStateChange'],
    [189, 'PrimarySteppedDown'],
    [91, 'ShutdownInProgress'],
  ])('treats the server code %i (%s) as an unavailable backend', (code, codeName) => {
    expect(isBackendUnavailable(new MongoServerError({ code, codeName, errmsg: codeName }))).toBe(
      true,
    );
  });

  it('treats a write concern error (wtimeout, step-down) as an unavailable backend', () => {
    // As the driver builds it from a reply of ok: 1 carrying a writeConcernError: the write was
    // applied on the primary, but not acknowledged as asked.
    const wtimeout = new MongoWriteConcernError({
      ok: 1,
      n: 1,
      writeConcernError: {
        code: 64,
        codeName: 'WriteConcernFailed',
        errmsg: 'waiting for replication timed out',
        errInfo: { wtimeout: true },
      },
    });
    expect(isBackendUnavailable(wtimeout)).toBe(true);
    const codeOnlyInResult = Object.assign(
      new MongoWriteConcernError({
        ok: 1,
        writeConcernError: { code: 11602, errmsg: 'operation was interrupted' },
      }),
      { code: undefined },
    );
    expect(isBackendUnavailable(codeOnlyInResult)).toBe(true);
  });

  it('treats an operation past its time limit as an unavailable backend', () => {
    expect(isBackendUnavailable(new MongoOperationTimeoutError('Timed out'))).toBe(true);
  });

  it('wraps only unavailability into BackendUnavailableError, keeping the cause', () => {
    const timeout = new MongoNetworkTimeoutError('socket timed out');
    const wrapped = asBackendError(timeout, 'link insert');
    expect(wrapped).toBeInstanceOf(BackendUnavailableError);
    expect((wrapped as Error).cause).toBe(timeout);
    expect((wrapped as Error).message).toMatch(/link insert/);
    const bug = new TypeError('bug');
    expect(asBackendError(bug, 'link insert')).toBe(bug);
  });

  it('runs a racing upsert once more after a duplicate key, and only then', async () => {
    let calls = 0;
    await expect(
      upsertRacing(() => {
        calls += 1;
        return calls === 1 ? Promise.reject(duplicateAlias()) : Promise.resolve('second');
      }),
    ).resolves.toBe('second');
    expect(calls).toBe(2);
    await expect(upsertRacing(() => Promise.reject(new Error('other')))).rejects.toThrow('other');
  });
});
