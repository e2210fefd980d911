import { MongoClient } from 'mongodb';
import { createCore, ErrorCode, hashSecret } from '../../core';
import { mongoStoreOn } from '../../core/adapters/mongodb';
import { mongoClientOptions } from '../../core/adapters/mongodb/connection-options';
import { startHttp, type HttpFixture } from '../support/http-fixture';
import { freePort } from '../support/free-port';
import { limitersOnSharedRedis, type SharedRedisLimiters } from '../support/shared-limit-fixture';

jest.setTimeout(120_000);

/**
 * The store's backend really is unreachable (the MongoDB driver against a port nothing listens
 * on; no mock), while the rate limiters run on Redis: create answers 503 code 23, /readyz says
 * so, /healthz still answers.
 */
describe('a store whose backend is unreachable, behind the HTTP gateway', () => {
  let client: MongoClient;
  let shared: SharedRedisLimiters;
  let http: HttpFixture;

  beforeAll(async () => {
    const port = await freePort();
    const uri = `mongodb://127.0.0.1:${port}/shortlink?directConnection=true&serverSelectionTimeoutMS=500`;
    client = new MongoClient(uri, mongoClientOptions(uri));
    shared = await limitersOnSharedRedis('store-down');
    const core = createCore({
      store: mongoStoreOn(client, client.db('shortlink'), true),
      rateLimiter: shared.limiters.perToken,
      authFailureLimiter: shared.limiters.authFailures,
    });
    http = await startHttp(core);
  });

  afterAll(async () => {
    await http.close();
    await shared.close();
    await client.close();
  });

  it('answers create with 503 and code 23, and counts no failed token check', async () => {
    const answer = await http.create(
      { organization_key: 'k', url_group_id: '1', url: 'https://example.com/' },
      'some-token',
    );
    expect(answer.status).toBe(503);
    expect(answer.json()).toMatchObject({ data: null, code: ErrorCode.BACKEND_UNAVAILABLE });
    expect((answer.json() as { errors: string[] }).errors).toHaveLength(1);
    // The token could not be checked, so the address is not charged with a failure.
    expect(await shared.limiters.authFailures.peek('127.0.0.1')).toBeNull();
    expect(await shared.limiters.perToken.peek(hashSecret('some-token'))).toBeNull();
  });

  it('answers /readyz with 503 while /healthz stays 200', async () => {
    const ready = await http.request({ path: '/readyz' });
    expect(ready.status).toBe(503);
    expect(ready.json()).toEqual({ status: 'store_unavailable' });
    expect((await http.request({ path: '/healthz' })).status).toBe(200);
  });
});
