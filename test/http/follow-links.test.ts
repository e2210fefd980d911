import { BackendUnavailableError, createCore } from '../../core';
import type { CoreFixture } from '../support/core-fixture';
import { failingStore } from '../support/failures';
import { expectError } from '../support/http-assertions';
import { startHttp, startHttpOnTestCore, type HttpFixture } from '../support/http-fixture';

let f: CoreFixture;
let http: HttpFixture;

beforeEach(async () => ({ f, http } = await startHttpOnTestCore()));
afterEach(() => http.close());

const create = (fields: Record<string, unknown>) =>
  f.caller().links.create(f.body(fields) as never);
const follow = (path: string, host = 'acme.link', method = 'GET') =>
  http.request({ method, path, headers: { host } });

describe('following a short link: GET and HEAD /<alias> on a link domain', () => {
  it.each([
    [301, 'private, max-age=90'],
    [302, 'no-store'],
    [303, 'no-store'],
    [307, 'no-store'],
    [308, 'private, max-age=90'],
  ])('answers %i with Location and Cache-Control %j', async (status, cacheControl) => {
    await create({ alias: 'go', url: 'https://example.com/target?a=1#top', redirect_type: status });
    for (const method of ['GET', 'HEAD']) {
      const answer = await follow('/go', 'acme.link', method);
      expect(answer.status).toBe(status);
      expect(answer.headers.location).toBe('https://example.com/target?a=1#top');
      expect(answer.headers['cache-control']).toBe(cacheControl);
      expect(answer.text).toBe('');
    }
  });

  it('uses the configured max-age for permanent redirects', async () => {
    const server = await startHttp(f.core, { redirectCacheMaxAge: 5 });
    try {
      await create({ alias: 'perm', redirect_type: 308 });
      const answer = await server.request({ path: '/perm', headers: { host: 'acme.link' } });
      expect(answer.headers['cache-control']).toBe('private, max-age=5');
    } finally {
      await server.close();
    }
  });

  it('sends an ASCII Location for a Unicode URL', async () => {
    await create({ alias: 'uni', url: 'https://bücher.example/päth?q=ü' });
    const answer = await follow('/uni');
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe('https://xn--bcher-kva.example/p%C3%A4th?q=%C3%BC');
  });

  it('matches the Host case-insensitively and the alias exactly', async () => {
    await create({ alias: 'Abc', url: 'https://upper.example/' });
    await create({ alias: 'abc', url: 'https://lower.example/' });
    expect((await follow('/Abc', 'ACME.Link')).headers.location).toBe('https://upper.example/');
    expect((await follow('/abc')).headers.location).toBe('https://lower.example/');
    expectError(await follow('/ABC'), 404, 'NOT_FOUND', ['No short link with this alias.']);
  });

  it('answers 404 for an unknown alias, and on a host that is no link domain', async () => {
    await create({ alias: 'here' });
    expectError(await follow('/nothere'), 404, 'NOT_FOUND', ['No short link with this alias.']);
    expectError(await follow('/here', 'elsewhere.example'), 404, 'NOT_FOUND', [
      'No short link with this alias.',
    ]);
    expectError(await follow('/here', 'beta.link'), 404, 'NOT_FOUND', [
      'No short link with this alias.',
    ]);
    const head = await follow('/nothere', 'acme.link', 'HEAD');
    expect(head.status).toBe(404);
    expect(head.text).toBe('');
  });

  it('answers 404 for paths that are no alias, a trailing slash included', async () => {
    await create({ alias: 'here' });
    expectError(await follow('/here/more'), 404, 'NOT_FOUND', ['Not found.']);
    expectError(await follow('/here/'), 404, 'NOT_FOUND', ['Not found.']);
    // `/` names no alias either: it answers where the interface is described (service-index.test.ts).
    expect((await follow('/')).text).toContain('<a href="/docs">');
  });

  it("follows a link whose domain carries this server's port (the demo's shape)", async () => {
    const domain = `127.0.0.1:${http.port}`;
    const { secretKey } = await f.provisioner.saveOrganization({
      id: 'local',
      domain,
      scheme: 'http',
    });
    await f.provisioner.saveGroup({ organizationId: 'local', apiId: '1' });
    await f.provisioner.addMember('alice', 'local');
    const created = await http.create(
      f.body({ organization_key: secretKey, url: 'https://example.com/local', redirect_type: 307 }),
      f.token,
    );
    const { data } = created.json() as { data: { short_url: string } };
    expect(data.short_url).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${http.port}/[0-9A-Za-z]{7}$`),
    );
    // Fetch the short_url exactly as printed: node's client sends Host: 127.0.0.1:<port>.
    const path = new URL(data.short_url).pathname;
    const answer = await http.request({ path });
    expect(answer.status).toBe(307);
    expect(answer.headers.location).toBe('https://example.com/local');
  });

  it('does not let other methods follow a link', async () => {
    await create({ alias: 'here' });
    const answer = await follow('/here', 'acme.link', 'POST');
    expect(answer.status).toBe(404);
  });
});

describe('a request line in absolute form (RFC 9112, 3.2.2): its own host decides, not Host', () => {
  beforeEach(() => create({ alias: 'go', url: 'https://example.com/acme', redirect_type: 302 }));

  it.each([
    'http://acme.link/go',
    'https://acme.link/go',
    'HTTP://ACME.Link/go',
    'https://acme.link:443/go',
    'http://acme.link./go',
  ])('follows %s sent with Host: beta.link', async (target) => {
    for (const method of ['GET', 'HEAD']) {
      const answer = await follow(target, 'beta.link', method);
      expect(answer.status).toBe(302);
      expect(answer.headers.location).toBe('https://example.com/acme');
    }
  });

  it('does not follow a link of the Host header when the request line names another host', async () => {
    expectError(await follow('http://beta.link/go', 'acme.link'), 404, 'NOT_FOUND', [
      'No short link with this alias.',
    ]);
    expectError(await follow('http://elsewhere.example/go', 'acme.link'), 404, 'NOT_FOUND', [
      'No short link with this alias.',
    ]);
  });

  it("keeps a trusted proxy's X-Forwarded-Host first: the proxy says what the client asked for", async () => {
    const server = await startHttp(f.core, { trustProxy: 'loopback' });
    try {
      const answer = await server.request({
        path: 'http://beta.link/go',
        headers: { host: 'beta.link', 'x-forwarded-host': 'acme.link' },
      });
      expect(answer.status).toBe(302);
      expect(answer.headers.location).toBe('https://example.com/acme');
    } finally {
      await server.close();
    }
  });
});

describe('following while the store fails (1, 23), answers checked against the OpenAPI document', () => {
  it.each([
    [
      'unavailable',
      () => new BackendUnavailableError('connection refused'),
      503,
      'BACKEND_UNAVAILABLE',
      'The service is temporarily unavailable.',
    ],
    [
      'failing unexpectedly',
      () => new Error('disk on fire at /var/lib/x'),
      500,
      'INTERNAL',
      'An unexpected error occurred.',
    ],
  ] as const)(
    'answers GET and HEAD with the contract error when the store is %s',
    async (_what, makeError, status, reason, message) => {
      await create({ alias: 'gone' });
      const store = failingStore(f.store, makeError, { parts: ['links'] });
      const server = await startHttp(createCore({ ...f.core.deps, store }));
      try {
        const answer = await server.request({ path: '/gone', headers: { host: 'acme.link' } });
        expectError(answer, status, reason, [message]);
        expect(answer.text).not.toContain('disk on fire');
        const head = await server.request({
          method: 'HEAD',
          path: '/gone',
          headers: { host: 'acme.link' },
        });
        expect(head.status).toBe(status);
        expect(head.text).toBe('');
      } finally {
        await server.close();
      }
    },
  );
});
