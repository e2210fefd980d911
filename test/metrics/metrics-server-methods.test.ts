import pino from 'pino';
import { listenMetrics, type RunningMetricsServer } from '../../gateway-http/metrics-server';
import { rawExchange } from '../support/raw-exchange';

describe('the metrics port answers every method and path as documented', () => {
  let server: RunningMetricsServer;
  beforeEach(async () => {
    const source = {
      contentType: 'text/plain; version=0.0.4',
      metrics: () => Promise.resolve('m 1\n'),
    };
    server = await listenMetrics(source, {
      port: 0,
      host: '127.0.0.1',
      logger: pino({ level: 'silent' }),
    });
  });
  afterEach(() => server.close());

  it('answers CONNECT /metrics 405 with Allow, not a dropped connection', async () => {
    const answer = await rawExchange(server.port, 'CONNECT /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 405 /);
    expect(answer).toMatch(/\r\nAllow: GET, HEAD\r\n/);
  });

  it('answers CONNECT to another target 404', async () => {
    const answer = await rawExchange(
      server.port,
      'CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 404 /);
  });

  it('serves GET /metrics with an Expect other than 100-continue, rather than a bare 417', async () => {
    const answer = await rawExchange(
      server.port,
      'GET /metrics HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nConnection: close\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('m 1\n');
  });
});
