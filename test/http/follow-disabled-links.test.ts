import { PLAIN_PAGE_CONTENT_SECURITY_POLICY } from '../../gateway-http/plain-page';
import type { UrlGuard } from '../../core';
import { LINK_GONE_PAGE } from '../../gateway-http/link-gone-page';
import type { CoreFixture } from '../support/core-fixture';
import { errorBody } from '../support/http-assertions';
import { startHttpOnTestCore, type HttpAnswer, type HttpFixture } from '../support/http-fixture';

const TARGET = 'https://example.com/secret-target?campaign=spring';
/** What Firefox and Chromium send for a page they navigate to. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const GONE_JSON = errorBody('LINK_DISABLED', ['This short link has been disabled.']);

/** Refuses, as the local rules would, any target on refused.example (code 28 on a follow). */
const refusingFollowGuard: UrlGuard = {
  check: (url) =>
    Promise.resolve(
      url.hostname === 'refused.example'
        ? { blocked: true, reason: 'on the blocklist' }
        : { blocked: false },
    ),
};

let f: CoreFixture;
let http: HttpFixture;

beforeEach(
  async () => ({ f, http } = await startHttpOnTestCore({ followGuard: refusingFollowGuard })),
);
afterEach(() => http.close());

const create = (fields: Record<string, unknown>) =>
  f.caller().links.create(f.body({ url: TARGET, ...fields }) as never);
const disable = (alias: string) =>
  f
    .caller()
    .links.disable({ organization_key: f.organizationKey, alias, reason: 'phishing report' });
const enable = (alias: string) =>
  f.caller().links.enable({ organization_key: f.organizationKey, alias });
const follow = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  http.request({ method, path, headers: { host: 'acme.link', ...headers } });

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

const GONE_JSON_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': String(Buffer.byteLength(GONE_JSON)),
  'cache-control': 'no-store',
  vary: 'Accept',
  'x-content-type-options': 'nosniff',
  'content-security-policy': undefined,
  location: undefined,
};
const GONE_PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-length': String(Buffer.byteLength(LINK_GONE_PAGE)),
  'cache-control': 'no-store',
  vary: 'Accept',
  'x-content-type-options': 'nosniff',
  'content-security-policy': PLAIN_PAGE_CONTENT_SECURITY_POLICY,
  location: undefined,
};

function expectGoneJson(answer: HttpAnswer): void {
  expect({ status: answer.status, text: answer.text }).toEqual({ status: 410, text: GONE_JSON });
  expect(describing(answer)).toEqual(GONE_JSON_HEADERS);
}

function expectGonePage(answer: HttpAnswer): void {
  expect({ status: answer.status, text: answer.text }).toEqual({
    status: 410,
    text: LINK_GONE_PAGE,
  });
  expect(describing(answer)).toEqual(GONE_PAGE_HEADERS);
}

describe('following a link that must not be followed: 410 Gone, code 28', () => {
  it('answers a client that prefers JSON with the error body, no Location, no-store', async () => {
    await create({ alias: 'promo', redirect_type: 308 });
    await disable('promo');
    const answer = await follow('/promo', { accept: 'application/json' });
    expectGoneJson(answer);
    expect(answer.text).not.toContain('example.com');
  });

  it('answers a browser, and a client with no Accept header, with the HTML page', async () => {
    await create({ alias: 'promo' });
    await disable('promo');
    const browsers: Array<Record<string, string>> = [
      { accept: BROWSER_ACCEPT },
      {},
      { accept: '*/*' },
    ];
    for (const headers of browsers) {
      const answer = await follow('/promo', headers);
      expectGonePage(answer);
      expect(answer.text).not.toContain('example.com');
      expect(answer.text).not.toContain('phishing report');
    }
  });

  it('picks the body by the Accept header as HTTP negotiates it (quality values, then order)', async () => {
    await create({ alias: 'promo' });
    await disable('promo');
    const cases: Array<[string, 'json' | 'html']> = [
      ['application/json', 'json'],
      ['application/json, text/html', 'json'],
      ['text/html;q=0.5, application/json', 'json'],
      ['application/*', 'json'],
      ['text/html, application/json', 'html'],
      ['application/json;q=0.5, text/html', 'html'],
      ['image/png', 'html'], // neither: the page, never a 406
      ['application/json;q=0', 'html'],
    ];
    for (const [accept, expected] of cases) {
      const answer = await follow('/promo', { accept });
      if (expected === 'json') expectGoneJson(answer);
      else expectGonePage(answer);
    }
  });

  it('answers HEAD with the same status and headers as GET, without a body', async () => {
    await create({ alias: 'promo' });
    await disable('promo');
    for (const accept of ['application/json', BROWSER_ACCEPT]) {
      const get = await follow('/promo', { accept });
      const head = await follow('/promo', { accept }, 'HEAD');
      expect(head.status).toBe(410);
      expect(head.text).toBe('');
      expect(describing(head)).toEqual(describing(get));
    }
  });

  it('serves a page that loads nothing and says, in a title and one sentence, the link is disabled', () => {
    expect(LINK_GONE_PAGE).toMatch(/^<!doctype html>/);
    expect(LINK_GONE_PAGE).toContain('<meta charset="utf-8" />');
    expect(LINK_GONE_PAGE).toContain('<title>Link disabled</title>');
    expect(LINK_GONE_PAGE).toContain('<p>This short link has been disabled.</p>');
    // No external resource, no script, no link anywhere.
    expect(LINK_GONE_PAGE).not.toMatch(/\b(?:src|href|action)=|<script|<link|url\(|@import/i);
    expect(PLAIN_PAGE_CONTENT_SECURITY_POLICY).toMatch(/^default-src 'none'; style-src 'sha256-/);
  });

  it('answers the same for a link of an inactive organization, and redirects again once it is active', async () => {
    await create({ alias: 'promo', redirect_type: 302 });
    await f.provisioner.setOrganizationActive('acme', false);
    expectGoneJson(await follow('/promo', { accept: 'application/json' }));
    expectGonePage(await follow('/promo', { accept: BROWSER_ACCEPT }));
    await f.provisioner.setOrganizationActive('acme', true);
    const answer = await follow('/promo');
    expect([answer.status, answer.headers.location]).toEqual([302, TARGET]);
  });

  it('answers the same for a link whose target the local rules now refuse', async () => {
    await create({ alias: 'refused', url: 'https://refused.example/login' });
    const json = await follow('/refused', { accept: 'application/json' });
    expectGoneJson(json);
    const page = await follow('/refused', { accept: BROWSER_ACCEPT });
    expectGonePage(page);
    expect(page.text).not.toContain('refused.example');
  });

  it('redirects again, with its own status and Location, once the link is enabled', async () => {
    await create({ alias: 'promo', redirect_type: 307 });
    await disable('promo');
    expect((await follow('/promo')).status).toBe(410);
    await enable('promo');
    for (const method of ['GET', 'HEAD']) {
      const answer = await follow('/promo', { accept: 'application/json' }, method);
      expect([answer.status, answer.headers.location, answer.headers['cache-control']]).toEqual([
        307,
        TARGET,
        'no-store',
      ]);
      expect(answer.text).toBe('');
    }
  });

  it('refuses a link disabled in the store itself, as the admin CLI does', async () => {
    const link = await create({ alias: 'byadmin' });
    const acting = { at: new Date(), by: 'admin', refuseHeld: false } as const;
    await f.store.links.setDisabled(
      link.id,
      { reason: 'abuse', at: acting.at, by: acting.by },
      acting,
    );
    expectGoneJson(await follow('/byadmin', { accept: 'application/json' }));
    // Other links, and unknown aliases, answer as before.
    await create({ alias: 'other' });
    expect((await follow('/other')).status).toBe(301);
    const unknown = await follow('/nothing', { accept: BROWSER_ACCEPT });
    expect([unknown.status, unknown.text]).toEqual([
      404,
      errorBody('NOT_FOUND', ['No short link with this alias.']),
    ]);
  });
});
