import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { loadConfig } from '../../core/runtime';
import { HTTP_SERVER_DEFAULTS } from '../../gateway-http/http-server';
import { listenMetrics, type RunningMetricsServer } from '../../gateway-http/metrics-server';
import { freePort } from '../support/free-port';
import { startInProcessService } from '../support/in-process-service';

jest.setTimeout(60_000);

const silent = pino({ level: 'silent' });

describe('METRICS_HOST: the metrics port has an address of its own', () => {
  it('is 127.0.0.1 unless set, whatever HOST is: HOST=0.0.0.0 does not publish /metrics', async () => {
    expect(loadConfig({}).METRICS_HOST).toBe('127.0.0.1');
    const service = await startInProcessService({
      HOST: '0.0.0.0',
      METRICS_PORT: String(await freePort()),
    });
    try {
      expect((service.http.server.address() as AddressInfo).address).toBe('0.0.0.0');
      expect((service.metrics!.server.address() as AddressInfo).address).toBe('127.0.0.1');
    } finally {
      await service.shutdown();
    }
  });

  it('binds the address it names', async () => {
    const service = await startInProcessService({
      METRICS_HOST: '::1',
      METRICS_PORT: String(await freePort()),
    });
    try {
      expect((service.metrics!.server.address() as AddressInfo).address).toBe('::1');
      const answer = await fetch(`http://[::1]:${service.metrics!.port}/metrics`);
      expect(answer.status).toBe(200);
    } finally {
      await service.shutdown();
    }
  });

  it.each(['0.0.0.0:9464', 'http://127.0.0.1', '[::1]', 'two words', ' ', 'a_b.example'])(
    'refuses %j at start, naming the setting',
    (value) => {
      expect(() => loadConfig({ METRICS_HOST: value })).toThrow(
        'invalid configuration: METRICS_HOST: must be an IP address (IPv6 without brackets) or a host name, with no port or scheme',
      );
    },
  );

  it('accepts IPv4 and IPv6 addresses and host names', () => {
    for (const value of [
      '0.0.0.0',
      '10.1.2.3',
      '::',
      'fe80::1%lo',
      'localhost',
      'metrics.internal',
    ]) {
      expect(loadConfig({ METRICS_HOST: value }).METRICS_HOST).toBe(value);
    }
  });

  it('is named when its address cannot be bound', async () => {
    // 192.0.2.1 (TEST-NET-1) is on no interface of this machine.
    const starting = startInProcessService({
      METRICS_HOST: '192.0.2.1',
      METRICS_PORT: String(await freePort()),
    });
    await expect(starting).rejects.toThrow(
      /^the metrics gateway cannot listen on 192\.0\.2\.1:\d+ \(set by METRICS_HOST\): .*EADDRNOTAVAIL/,
    );
  });
});

describe('METRICS_MAX_CONCURRENT_SCRAPES: scrapes collected at once', () => {
  it('is 4 unless set, at least 1 and at most 100', () => {
    expect(loadConfig({}).METRICS_MAX_CONCURRENT_SCRAPES).toBe(4);
    expect(loadConfig({ METRICS_MAX_CONCURRENT_SCRAPES: '1' }).METRICS_MAX_CONCURRENT_SCRAPES).toBe(
      1,
    );
    for (const value of ['0', '101', 'many', '']) {
      expect(() => loadConfig({ METRICS_MAX_CONCURRENT_SCRAPES: value })).toThrow(
        /METRICS_MAX_CONCURRENT_SCRAPES/,
      );
    }
  });

  it('answers a scrape past the bound 503 with Retry-After at once, and serves again once a collection ends', async () => {
    let collections = 0;
    const waiting: (() => void)[] = [];
    const source = {
      contentType: 'text/plain; version=0.0.4',
      metrics: () => {
        collections += 1;
        return new Promise<string>((resolve) => waiting.push(() => resolve('m 1\n')));
      },
    };
    const server = await listenMetrics(source, {
      port: 0,
      host: '127.0.0.1',
      logger: silent,
      maxConcurrentScrapes: 2,
    });
    try {
      const url = `http://127.0.0.1:${server.port}/metrics`;
      const held = [fetch(url), fetch(url)];
      while (collections < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      const refused = await fetch(url);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.text()).toBe('Too many scrapes at once (at most 2); try again.\n');
      expect(collections).toBe(2);

      for (const release of waiting.splice(0)) release();
      for (const answer of await Promise.all(held)) {
        expect(answer.status).toBe(200);
        expect(await answer.text()).toBe('m 1\n');
      }
      const again = fetch(url);
      while (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      waiting.shift()!();
      expect((await again).status).toBe(200);
    } finally {
      for (const release of waiting) release();
      await server.close();
    }
  });

  it('frees the slot of a collection that fails', async () => {
    const source = {
      contentType: 'text/plain; version=0.0.4',
      metrics: () => Promise.reject(new Error('no registry')),
    };
    const server = await listenMetrics(source, {
      port: 0,
      host: '127.0.0.1',
      logger: silent,
      maxConcurrentScrapes: 1,
    });
    try {
      for (let i = 0; i < 3; i += 1) {
        expect((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status).toBe(500);
      }
    } finally {
      await server.close();
    }
  });
});

describe("the metrics port has the REST port's timeouts and limits", () => {
  let server: RunningMetricsServer;
  beforeEach(async () => {
    const source = { contentType: 'text/plain', metrics: () => Promise.resolve('m 1\n') };
    server = await listenMetrics(source, { port: 0, host: '127.0.0.1', logger: silent });
  });
  afterEach(() => server.close());

  it('is configured with them', () => {
    expect({
      requestTimeout: server.server.requestTimeout,
      headersTimeout: server.server.headersTimeout,
      keepAliveTimeout: server.server.keepAliveTimeout,
      maxHeadersCount: server.server.maxHeadersCount,
    }).toEqual({
      requestTimeout: HTTP_SERVER_DEFAULTS.requestTimeoutMs,
      headersTimeout: HTTP_SERVER_DEFAULTS.headersTimeoutMs,
      keepAliveTimeout: HTTP_SERVER_DEFAULTS.keepAliveTimeoutMs,
      maxHeadersCount: HTTP_SERVER_DEFAULTS.maxHeadersCount,
    });
  });

  it('answers 408 and closes a connection whose headers never end, within the headers timeout', async () => {
    const startedAt = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () =>
        socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\n'),
      );
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
    });
    const waited = Date.now() - startedAt;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(waited).toBeGreaterThanOrEqual(HTTP_SERVER_DEFAULTS.headersTimeoutMs - 100);
    expect(waited).toBeLessThan(HTTP_SERVER_DEFAULTS.headersTimeoutMs + 3_000);
  });

  it('answers 431 to a head larger than the REST limit', async () => {
    const answer = await fetch(`http://127.0.0.1:${server.port}/metrics`, {
      headers: { 'x-filler': 'a'.repeat(HTTP_SERVER_DEFAULTS.maxHeaderSizeBytes) },
    });
    expect(answer.status).toBe(431);
  });
});
