import { BackendUnavailableError, createCore, ErrorCode } from '../../core';
import type { CoreFixture } from '../support/core-fixture';
import { failingStore } from '../support/failures';
import { startHttp, startHttpOnTestCore, type HttpFixture } from '../support/http-fixture';
import { captureLogs } from '../support/log-capture';

let f: CoreFixture;
let http: HttpFixture;

beforeEach(async () => ({ f, http } = await startHttpOnTestCore()));
afterEach(() => http.close());

describe('operations endpoints', () => {
  it('GET /healthz answers 200', async () => {
    const answer = await http.request({ path: '/healthz' });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ status: 'ok' });
  });

  it.each(['/healthz/', '/readyz/', '/openapi.json/', '/docs/'])(
    'GET %s, with a trailing slash, is no endpoint: 404, code 24',
    async (path) => {
      const answer = await http.request({ path });
      expect(answer.status).toBe(404);
      expect(answer.json()).toMatchObject({ data: null, code: ErrorCode.NOT_FOUND });
    },
  );

  it('GET /readyz answers 200 while the store answers', async () => {
    const answer = await http.request({ path: '/readyz' });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ status: 'ready' });
  });

  it('GET /readyz answers 503 when the store ping rejects, while /healthz stays 200', async () => {
    const store = failingStore(f.store, () => new BackendUnavailableError('no primary'), {
      ping: true,
    });
    const server = await startHttp(createCore({ ...f.core.deps, store }));
    try {
      const ready = await server.request({ path: '/readyz' });
      expect(ready.status).toBe(503);
      expect(ready.json()).toEqual({ status: 'store_unavailable' });
      expect((await server.request({ path: '/healthz' })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('GET /readyz answers 503 once the server stops accepting', async () => {
    const readiness = { accepting: true, awaitingWorkers: false };
    const server = await startHttp(f.core, { readiness });
    try {
      expect((await server.request({ path: '/readyz' })).status).toBe(200);
      readiness.accepting = false;
      expect((await server.request({ path: '/readyz' })).status).toBe(503);
    } finally {
      await server.close();
    }
  });

  it('GET /readyz answers 503 "starting" while a WORKERS worker waits for the others to listen', async () => {
    const readiness = { accepting: true, awaitingWorkers: true };
    const server = await startHttp(f.core, { readiness });
    try {
      const starting = await server.request({ path: '/readyz' });
      expect([starting.status, starting.json()]).toEqual([503, { status: 'starting' }]);
      expect((await server.request({ path: '/healthz' })).status).toBe(200);
      readiness.awaitingWorkers = false;
      expect((await server.request({ path: '/readyz' })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it.each(['/healthz', '/readyz', '/openapi.json', '/docs'])(
    'HEAD %s answers as GET does, without a body (the document lists HEAD for it)',
    async (path) => {
      const answer = await http.request({ method: 'HEAD', path });
      expect(answer.status).toBe(200);
      expect(answer.text).toBe('');
    },
  );

  it.each(['/healthz', '/readyz', '/openapi.json', '/docs', '/docs/init.js'])(
    'GET %s with If-None-Match: * answers 304 (RFC 9110: it has a representation), as documented',
    async (path) => {
      const answer = await http.request({ path, headers: { 'if-none-match': '*' } });
      expect([answer.status, answer.text]).toEqual([304, '']);
    },
  );

  it('answers the health endpoints on a link domain too (their aliases are reserved)', async () => {
    const answer = await http.request({ path: '/healthz', headers: { host: 'acme.link' } });
    expect(answer.status).toBe(200);
  });
});

describe('request ids', () => {
  it('echoes a well-formed X-Request-Id', async () => {
    const answer = await http.request({
      path: '/healthz',
      headers: { 'x-request-id': 'abc-123_x.y' },
    });
    expect(answer.headers['x-request-id']).toBe('abc-123_x.y');
  });

  it('makes one up when none or a malformed one is given', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const none = await http.request({ path: '/healthz' });
    expect(none.headers['x-request-id']).toMatch(uuid);
    const bad = await http.request({
      path: '/healthz',
      headers: { 'x-request-id': 'has spaces and "quotes"' },
    });
    expect(bad.headers['x-request-id']).toMatch(uuid);
    const long = await http.request({
      path: '/healthz',
      headers: { 'x-request-id': 'a'.repeat(65) },
    });
    expect(long.headers['x-request-id']).toMatch(uuid);
  });

  it('sets X-Request-Id on API errors as well', async () => {
    const answer = await http.create({}, undefined, { 'x-request-id': 'req-401' });
    expect(answer.status).toBe(401);
    expect(answer.headers['x-request-id']).toBe('req-401');
  });
});

describe('logs', () => {
  it('log one line per request with its id, and never a token or an organization key', async () => {
    const logs = captureLogs();
    const server = await startHttp(f.core, { logger: logs.logger });
    const brokenStore = failingStore(f.store, () => new Error('write conflict'), {
      parts: ['links'],
    });
    const broken = await startHttp(createCore({ ...f.core.deps, store: brokenStore }), {
      logger: logs.logger,
    });
    const guessedToken = 'slpat_guessedTokenValue0001';
    const wrongKey = 'slorg_wrongOrganizationKey0001';
    try {
      const ids = ['log-ok', 'log-401', 'log-org', 'log-body', 'log-500'];
      expect((await server.create(f.body(), f.token, { 'x-request-id': 'log-ok' })).status).toBe(
        200,
      );
      expect(
        (await server.create(f.body(), guessedToken, { 'x-request-id': 'log-401' })).status,
      ).toBe(401);
      expect(
        (
          await server.create(f.body({ organization_key: wrongKey }), f.token, {
            'x-request-id': 'log-org',
          })
        ).status,
      ).toBe(401);
      const rawBody = await server.request({
        method: 'POST',
        path: `/api/create?organization_key=${wrongKey}`,
        headers: {
          authorization: `Bearer ${f.token}`,
          'content-type': 'application/json',
          'x-request-id': 'log-body',
        },
        body: `{"organization_key":"${f.organizationKey}",`,
      });
      expect(rawBody.status).toBe(400);
      expect((await broken.create(f.body(), f.token, { 'x-request-id': 'log-500' })).status).toBe(
        500,
      );

      const text = logs.text();
      for (const secret of [f.token, f.organizationKey, guessedToken, wrongKey]) {
        expect(text).not.toContain(secret);
      }
      const records = logs.records();
      for (const id of ids) {
        const lines = records.filter(
          (record) => (record.req as { id?: string } | undefined)?.id === id,
        );
        expect(lines.length).toBeGreaterThanOrEqual(1);
      }
      // One line per finished request ("request completed", or "request aborted").
      const completed = records.filter((record) => record.res !== undefined);
      expect(completed.map((record) => (record.req as { id: string }).id).sort()).toEqual(
        [...ids].sort(),
      );
      for (const record of completed) {
        expect(Object.keys(record.req as object).sort()).toEqual(
          ['id', 'method', 'path', 'remoteAddress'].sort(),
        );
      }
      // The failure that made the 500 is logged for the operator, at error level.
      expect(
        records.some((record) => record.level === 50 && record.msg === 'links.create failed'),
      ).toBe(true);
    } finally {
      await server.close();
      await broken.close();
    }
  });
});
