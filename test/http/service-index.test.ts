import { SERVICE_INDEX, SERVICE_INDEX_PAGE } from '../../gateway-http/service-index';
import { PLAIN_PAGE_CONTENT_SECURITY_POLICY } from '../../gateway-http/plain-page';
import type { CoreFixture } from '../support/core-fixture';
import { startHttpOnTestCore, type HttpFixture } from '../support/http-fixture';

let f: CoreFixture;
let http: HttpFixture;

beforeAll(async () => ({ f, http } = await startHttpOnTestCore()));
afterAll(() => http.close());

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('GET / points to the reference page', () => {
  it('answers a client that prefers JSON with the paths of the page and the document, each served', async () => {
    for (const accept of ['application/json', 'application/json, text/html;q=0.5']) {
      const answer = await http.request({ path: '/', headers: { accept } });
      expect([accept, answer.status, answer.headers['content-type']]).toEqual([
        accept,
        200,
        'application/json; charset=utf-8',
      ]);
      expect(answer.headers.vary).toBe('Accept');
      expect(answer.json()).toEqual({ docs: '/docs', openapi: '/openapi.json' });
    }
    for (const path of Object.values(SERVICE_INDEX)) {
      expect([path, (await http.request({ path })).status]).toEqual([path, 200]);
    }
  });

  it.each([
    ['a browser', BROWSER_ACCEPT],
    ['curl (*/*)', '*/*'],
    ['no Accept header', undefined],
  ])('answers %s with a page linking both, which loads nothing', async (_who, accept) => {
    const answer = await http.request({
      path: '/',
      headers: accept === undefined ? {} : { accept },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.headers['content-security-policy']).toBe(PLAIN_PAGE_CONTENT_SECURITY_POLICY);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.text).toBe(SERVICE_INDEX_PAGE);
    expect(answer.text).toContain('<a href="/docs">');
    expect(answer.text).toContain('<a href="/openapi.json">');
  });

  it('answers the same on a link domain, and HEAD without the body', async () => {
    const headers = { host: f.domain, accept: 'application/json' };
    expect((await http.request({ path: '/', headers })).json()).toEqual(SERVICE_INDEX);
    const head = await http.request({ method: 'HEAD', path: '/', headers });
    expect([head.status, head.text]).toEqual([200, '']);
  });
});
