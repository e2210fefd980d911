import { PLAIN_PAGE_CONTENT_SECURITY_POLICY } from '../../gateway-http/plain-page';
import { LINK_EXPIRED_PAGE } from '../../gateway-http/link-gone-page';
import type { CoreFixture } from '../support/core-fixture';
import { errorBody } from '../support/http-assertions';
import {
  startHttp,
  startHttpOnTestCore,
  type HttpAnswer,
  type HttpFixture,
} from '../support/http-fixture';

/** Following a link past its expires_at or out of visits: 410, code 30; and its Cache-Control. */

const TARGET = 'https://example.com/secret-target?campaign=spring';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const EXPIRED_JSON = errorBody('LINK_EXPIRED', ['This short link has expired.']);
const T0 = Date.parse('2027-03-01T12:00:00.000Z');

let now = T0;
let f: CoreFixture;
let http: HttpFixture;

beforeEach(async () => {
  now = T0;
  ({ f, http } = await startHttpOnTestCore({ clock: { now: () => new Date(now) } }));
});
afterEach(() => http.close());

const create = (fields: Record<string, unknown>) =>
  f.caller().links.create(f.body({ url: TARGET, ...fields }) as never);
const follow = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  http.request({ method, path, headers: { host: 'acme.link', ...headers } });
const inSeconds = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

/** The answer's headers that describe it (not the date, the connection or the request id). */
function describing(answer: HttpAnswer): Record<string, unknown> {
  const h = answer.headers;
  return {
    'content-type': h['content-type'],
    'content-length': h['content-length'],
    'cache-control': h['cache-control'],
    vary: h.vary,
    'x-content-type-options': h['x-content-type-options'],
    'content-security-policy': h['content-security-policy'],
    location: h.location,
  };
}

function expectExpiredJson(answer: HttpAnswer): void {
  expect({ status: answer.status, text: answer.text }).toEqual({
    status: 410,
    text: EXPIRED_JSON,
  });
  expect(describing(answer)).toEqual({
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(EXPIRED_JSON)),
    'cache-control': 'no-store',
    vary: 'Accept',
    'x-content-type-options': 'nosniff',
    'content-security-policy': undefined,
    location: undefined,
  });
}

function expectExpiredPage(answer: HttpAnswer): void {
  expect({ status: answer.status, text: answer.text }).toEqual({
    status: 410,
    text: LINK_EXPIRED_PAGE,
  });
  expect(describing(answer)).toEqual({
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(Buffer.byteLength(LINK_EXPIRED_PAGE)),
    'cache-control': 'no-store',
    vary: 'Accept',
    'x-content-type-options': 'nosniff',
    'content-security-policy': PLAIN_PAGE_CONTENT_SECURITY_POLICY,
    location: undefined,
  });
}

describe('following a link past its expires_at: 410 Gone, code 30', () => {
  it('redirects until the expiry, then answers JSON or the page by Accept, never the target', async () => {
    await create({ alias: 'dated', redirect_type: 302, expires_at: inSeconds(60) });
    now = T0 + 59_999;
    const before = await follow('/dated');
    expect([before.status, before.headers.location]).toEqual([302, TARGET]);
    now = T0 + 60_000;
    const json = await follow('/dated', { accept: 'application/json' });
    expectExpiredJson(json);
    for (const headers of [{ accept: BROWSER_ACCEPT }, {}] as Array<Record<string, string>>) {
      const page = await follow('/dated', headers);
      expectExpiredPage(page);
      expect(page.text).not.toContain('example.com');
    }
  });

  it('answers HEAD with the same status and headers as GET, without a body', async () => {
    await create({ alias: 'dated', expires_at: inSeconds(1) });
    now = T0 + 1000;
    for (const accept of ['application/json', BROWSER_ACCEPT]) {
      const get = await follow('/dated', { accept });
      const head = await follow('/dated', { accept }, 'HEAD');
      expect([head.status, head.text]).toEqual([410, '']);
      expect(describing(head)).toEqual(describing(get));
    }
  });

  it('serves a page that says the link has expired, and loads nothing', () => {
    expect(LINK_EXPIRED_PAGE).toContain('<title>Link expired</title>');
    expect(LINK_EXPIRED_PAGE).toContain('<p>This short link has expired.</p>');
    expect(LINK_EXPIRED_PAGE).not.toMatch(/\b(?:src|href|action)=|<script|<link|url\(|@import/i);
  });

  it('answers 28, not 30, for a link that is disabled and expired', async () => {
    await create({ alias: 'both', expires_at: inSeconds(1) });
    await f
      .caller()
      .links.disable({ organization_key: f.organizationKey, alias: 'both', reason: 'report' });
    now = T0 + 5000;
    const answer = await follow('/both', { accept: 'application/json' });
    expect([answer.status, (answer.json() as { code: number }).code]).toEqual([410, 28]);
  });
});

describe('following a link with max_visits: 410 Gone, code 30, once they are used', () => {
  it('redirects max_visits GETs, then answers 30 in JSON or as the page', async () => {
    await create({ alias: 'twice', redirect_type: 307, max_visits: 2 });
    for (let i = 0; i < 2; i += 1) {
      const answer = await follow('/twice');
      expect([answer.status, answer.headers.location]).toEqual([307, TARGET]);
    }
    expectExpiredJson(await follow('/twice', { accept: 'application/json' }));
    expectExpiredPage(await follow('/twice'));
  });

  it('counts no HEAD: a HEAD is no visit', async () => {
    await create({ alias: 'once', redirect_type: 302, max_visits: 1 });
    for (let i = 0; i < 3; i += 1) {
      const head = await follow('/once', {}, 'HEAD');
      expect([head.status, head.headers.location, head.text]).toEqual([302, TARGET, '']);
    }
    expect((await follow('/once')).status).toBe(302);
    expect((await f.store.links.findById(1))?.visits).toBe(1);
    // Used up: the HEAD says so too, without counting.
    expect((await follow('/once', {}, 'HEAD')).status).toBe(410);
    expectExpiredJson(await follow('/once', { accept: 'application/json' }));
  });
});

describe('Cache-Control of a followed link with limits', () => {
  it.each([
    [301, 'an hour', 'private, max-age=90', 3600],
    [308, '45.5 s', 'private, max-age=45', 45.5],
    [301, '0.5 s', 'private, max-age=0', 0.5],
    [302, '45 s', 'no-store', 45],
  ])('a %d expiring in %s: %s', async (status, _label, expected, seconds) => {
    await create({ alias: 'dated', redirect_type: status, expires_at: inSeconds(seconds) });
    const answer = await follow('/dated');
    expect([answer.status, answer.headers['cache-control']]).toEqual([status, expected]);
  });

  it('shortens the configured max-age as the expiry nears', async () => {
    const server = await startHttp(f.core, { redirectCacheMaxAge: 600 });
    try {
      await create({ alias: 'dated', redirect_type: 308, expires_at: inSeconds(300) });
      const at = async (ms: number) => {
        now = T0 + ms;
        const answer = await server.request({ path: '/dated', headers: { host: 'acme.link' } });
        return answer.headers['cache-control'];
      };
      expect(await at(0)).toBe('private, max-age=300');
      expect(await at(299_001)).toBe('private, max-age=0');
      expect(await at(-400_000)).toBe('private, max-age=600');
    } finally {
      await server.close();
    }
  });

  it.each([301, 308])(
    'never lets a browser keep a %d with max_visits: no-store',
    async (status) => {
      await create({ alias: 'counted', redirect_type: status, max_visits: 10 });
      const answer = await follow('/counted');
      expect([answer.status, answer.headers['cache-control']]).toEqual([status, 'no-store']);
    },
  );

  it('keeps the configured max-age for a permanent link without limits', async () => {
    await create({ alias: 'plain', redirect_type: 301 });
    expect((await follow('/plain')).headers['cache-control']).toBe('private, max-age=90');
  });
});
