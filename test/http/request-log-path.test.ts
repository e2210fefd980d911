import { createTestCore } from '../support/core-fixture';
import { startHttp, type HttpFixture } from '../support/http-fixture';
import { captureLogs } from '../support/log-capture';
import { rawExchange } from '../support/raw-exchange';

describe('the request log line', () => {
  let server: HttpFixture | undefined;
  afterEach(() => server?.close());

  it('logs the path of an absolute-form request target, not its credentials, host or query', async () => {
    const f = await createTestCore();
    const logs = captureLogs();
    server = await startHttp(f.core, { logger: logs.logger });
    const answer = await rawExchange(
      server.port,
      'GET http://user:s3cret-password@acme.link/healthz?token=s3cret-query HTTP/1.1\r\n' +
        'Host: acme.link\r\nX-Request-Id: absolute-form\r\nConnection: close\r\n\r\n',
    );
    expect(answer.startsWith('HTTP/1.1 200 ')).toBe(true);

    expect(logs.text()).not.toContain('s3cret');
    const line = logs
      .records()
      .find((record) => (record.req as { id?: string } | undefined)?.id === 'absolute-form');
    expect(line?.req).toMatchObject({ method: 'GET', path: '/healthz' });
  });

  it('logs an origin-form path as before, without its query', async () => {
    const f = await createTestCore();
    const logs = captureLogs();
    server = await startHttp(f.core, { logger: logs.logger });
    await rawExchange(
      server.port,
      'GET /healthz?token=s3cret-query HTTP/1.1\r\n' +
        'Host: acme.link\r\nX-Request-Id: origin-form\r\nConnection: close\r\n\r\n',
    );
    expect(logs.text()).not.toContain('s3cret');
    const line = logs
      .records()
      .find((record) => (record.req as { id?: string } | undefined)?.id === 'origin-form');
    expect(line?.req).toMatchObject({ method: 'GET', path: '/healthz' });
  });
});
