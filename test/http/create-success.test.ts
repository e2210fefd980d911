import { createMemoryRateLimiter, type ResponseInfo } from '../../core';
import type { CoreFixture } from '../support/core-fixture';
import { expectRateLimitHeaders } from '../support/http-assertions';
import { startHttpOnTestCore, type HttpFixture } from '../support/http-fixture';

let f: CoreFixture;
let http: HttpFixture;

beforeEach(async () => ({ f, http } = await startHttpOnTestCore()));
afterEach(() => http.close());

describe('POST /api/create: success', () => {
  it('answers 200 with the exact body, keys in order, and the rate-limit headers', async () => {
    const answer = await http.create(
      f.body({
        url: '  https://example.com/path?x=1  ',
        alias: 'Spring-sale_1',
        redirect_type: 302,
      }),
      f.token,
    );
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.text).toBe(
      '{"data":{"id":1,"short_url":"https://acme.link/Spring-sale_1","url":"https://example.com/path?x=1",' +
        '"domain":"acme.link","alias":"Spring-sale_1","redirect_type":302},"code":0,"errors":[]}',
    );
    expectRateLimitHeaders(answer.headers, { limit: 60, remaining: 59 });
    expect(answer.headers['retry-after']).toBeUndefined();
  });

  it("generates an alias and defaults to 301; the link domain scheme is the organization's", async () => {
    const answer = await http.create(
      f.body({ organization_key: f.otherOrganizationKey, alias: '', redirect_type: null }),
      f.token,
    );
    const { data } = answer.json() as { data: Record<string, unknown> };
    expect(Object.keys(data)).toEqual([
      'id',
      'short_url',
      'url',
      'domain',
      'alias',
      'redirect_type',
    ]);
    expect(data.alias).toMatch(/^[0-9A-Za-z]{7}$/);
    expect(data.short_url).toBe(`http://beta.link/${String(data.alias)}`);
    expect(data.redirect_type).toBe(301);
    expect(data.domain).toBe('beta.link');
  });

  it('takes url_group_id as an integer and ignores unknown fields', async () => {
    const answer = await http.create(f.body({ url_group_id: 42, id: 77, whatever: [1] }), f.token);
    expect(answer.status).toBe(200);
    expect((answer.json() as { data: { id: number } }).data.id).toBe(1);
  });

  it('keeps a JSON body with a __proto__ key from polluting anything', async () => {
    const text = `{"__proto__":{"polluted":true},${JSON.stringify(f.body()).slice(1)}`;
    const answer = await http.request({
      method: 'POST',
      path: '/api/create',
      headers: { authorization: `Bearer ${f.token}`, 'content-type': 'application/json' },
      body: text,
    });
    expect(answer.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('counts down the remaining budget and reports the reset time', async () => {
    const before = Math.floor(Date.now() / 1000);
    const first = await http.create(f.body(), f.token);
    const second = await http.create(f.body({ url: 'nope' }), f.token);
    const third = await http.create(f.body(), f.token);
    expectRateLimitHeaders(first.headers, { limit: 60, remaining: 59 });
    expectRateLimitHeaders(second.headers, { limit: 60, remaining: 58 });
    expectRateLimitHeaders(third.headers, { limit: 60, remaining: 57 });
    const reset = Number(first.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThanOrEqual(before + 59);
    expect(reset).toBeLessThanOrEqual(before + 62);
  });

  it('shows a configured limit in every header', async () => {
    const { f: limited, http: server } = await startHttpOnTestCore({
      rateLimiter: createMemoryRateLimiter({ limit: 5, windowSeconds: 30, keyPrefix: 'h' }),
    });
    try {
      const answer = await server.create(limited.body(), limited.token);
      expectRateLimitHeaders(answer.headers, { limit: 5, remaining: 4, windowSeconds: 30 });
    } finally {
      await server.close();
    }
  });

  it('serves the same procedures as in-process callers: ids are shared', async () => {
    const response: ResponseInfo = {};
    const inProcess = await f.caller({ response }).links.create(f.body() as never);
    const overHttp = (await http.create(f.body(), f.token)).json() as { data: { id: number } };
    expect(inProcess.id).toBe(1);
    expect(overHttp.data.id).toBe(2);
  });
});
