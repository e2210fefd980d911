import { BackendUnavailableError, createCore } from '../../core';
import { createTestCore } from '../support/core-fixture';
import { failingStore } from '../support/failures';
import { startHttp } from '../support/http-fixture';
import { captureLogs } from '../support/log-capture';

describe('following while the store fails', () => {
  it.each([
    ['unavailable (503, code 23)', () => new BackendUnavailableError('connection refused'), 503],
    ['failing unexpectedly (500, code 1)', () => new Error('disk on fire'), 500],
  ] as const)(
    'logs the failure with the request id when the store is %s',
    async (_what, makeError, status) => {
      const f = await createTestCore();
      await f.caller().links.create(f.body({ alias: 'gone' }) as never);
      const logs = captureLogs();
      const store = failingStore(f.store, makeError, { parts: ['links'] });
      const server = await startHttp(createCore({ ...f.core.deps, store, logger: logs.logger }), {
        logger: logs.logger,
      });
      try {
        const answer = await server.request({
          path: '/gone',
          headers: { host: 'acme.link', 'x-request-id': 'follow-fails' },
        });
        expect(answer.status).toBe(status);
        if (status === 503) expect(answer.headers['retry-after']).toBe('5');
        const failure = logs
          .records()
          .find((record) => record.level === 50 && record.err !== undefined);
        expect(failure).toBeDefined();
        expect((failure?.req as { id?: string } | undefined)?.id).toBe('follow-fails');
      } finally {
        await server.close();
      }
    },
  );

  it('for comparison: a create that fails logs with the request id, 503 with Retry-After', async () => {
    const f = await createTestCore();
    const logs = captureLogs();
    const store = failingStore(f.store, () => new BackendUnavailableError('down'), {
      parts: ['links'],
    });
    const server = await startHttp(createCore({ ...f.core.deps, store, logger: logs.logger }), {
      logger: logs.logger,
    });
    try {
      const answer = await server.create(f.body(), f.token, { 'x-request-id': 'create-fails' });
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('5');
      const failure = logs
        .records()
        .find((record) => record.level === 50 && record.err !== undefined);
      expect((failure?.req as { id?: string } | undefined)?.id).toBe('create-fails');
    } finally {
      await server.close();
    }
  });
});
