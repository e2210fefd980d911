import { connect, type Socket } from 'node:net';
import { ShortlinkMetrics, type UrlVerdict } from '../../core';
import { createHttpApp } from '../../gateway-http/app';
import { expressMessageClasses } from '../../gateway-http/express-message-classes';
import { listenHttp, type RunningHttpServer } from '../../gateway-http/http-server';
import { createTestCore, type CoreFixture } from '../support/core-fixture';
import { eventually } from '../support/eventually';
import { captureLogs, type CapturedLogs } from '../support/log-capture';

/**
 * Requests whose body never arrives in full: the client hangs up mid-body, or the body stops and
 * the server's request timeout answers 408. The log line says what happened (no made-up 200)
 * and the request counter never counts a code the client did not get.
 */

const REQUEST_TIMEOUT_MS = 400;

let f: CoreFixture;
let logs: CapturedLogs;
let metrics: ShortlinkMetrics;
let server: RunningHttpServer;
/** The anti-phishing check's verdict: allowed at once unless a test holds it back. */
let verdict: () => Promise<UrlVerdict>;

beforeEach(async () => {
  verdict = () => Promise.resolve({ blocked: false });
  f = await createTestCore({ urlGuard: { check: () => verdict() } });
  logs = captureLogs();
  metrics = new ShortlinkMetrics({ processMetrics: false });
  const app = createHttpApp(f.core, { logger: logs.logger, metrics });
  server = await listenHttp(app, {
    port: 0,
    host: '127.0.0.1',
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    headersTimeoutMs: REQUEST_TIMEOUT_MS,
    messageClasses: expressMessageClasses(app),
  });
});
afterEach(() => server.close());

/** Sends the head of a create announcing 100 bytes of body, and 5 of them. */
function sendCutOffCreate(
  headers: string[] = [],
): Promise<{ socket: Socket; received: () => string }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(server.port, '127.0.0.1', () => {
      socket.write(
        [
          'POST /api/create HTTP/1.1',
          'Host: 127.0.0.1',
          'Content-Type: application/json',
          'Content-Length: 100',
          ...headers,
          '',
          '{"a":',
        ].join('\r\n'),
      );
      resolve({ socket, received: () => Buffer.concat(chunks).toString('latin1') });
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
  });
}

const requestLines = () => logs.records().filter((record) => record.req !== undefined);

/** The non-zero samples of a counter with a `gateway="rest"` label, by their other labels. */
async function restCounts(name: string): Promise<Record<string, number>> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  const counts: Record<string, number> = {};
  for (const { labels, value } of metric?.values ?? []) {
    if (labels.gateway !== 'rest' || value === 0) continue;
    const key = Object.entries(labels)
      .filter(([label]) => label !== 'gateway')
      .map(([label, labelValue]) => `${label}=${String(labelValue)}`)
      .join(',');
    counts[key] = value;
  }
  return counts;
}

const createCounts = async () => restCounts('shortlink_requests_total');

it('a client that hangs up mid-body: logged as aborted with no status, and not counted', async () => {
  const { socket } = await sendCutOffCreate();
  // Let the server start reading the body before the client goes.
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
  await eventually(() => requestLines().length > 0, 'the log line');
  // Let the handler finish whatever it would do after the abort.
  await new Promise((resolve) => setTimeout(resolve, 100));

  const [line, ...more] = requestLines();
  expect(more).toEqual([]);
  expect(line).toMatchObject({
    msg: 'request aborted',
    req: { method: 'POST', path: '/api/create', remoteAddress: '127.0.0.1' },
  });
  expect(line).not.toHaveProperty('res');
  expect(await createCounts()).toEqual({});
  expect(f.linkCount()).toBe(0);
});

it('a body that stops: node answers 408, logged as such, and not counted', async () => {
  const { socket, received } = await sendCutOffCreate([`Authorization: Bearer ${f.token}`]);
  await new Promise((resolve) => socket.once('close', resolve));
  expect(received()).toMatch(/^HTTP\/1\.1 408 /);
  await eventually(() => requestLines().length > 0, 'the log line');
  await new Promise((resolve) => setTimeout(resolve, 100));

  const [line, ...more] = requestLines();
  expect(more).toEqual([]);
  expect(line).toMatchObject({
    msg: 'request timed out',
    req: { method: 'POST', path: '/api/create', remoteAddress: '127.0.0.1' },
    res: { statusCode: 408 },
  });
  expect(await createCounts()).toEqual({});
});

it('a complete request on the same server is still logged and counted', async () => {
  const { socket, received } = await sendCutOffCreate();
  socket.end('x'.repeat(95));
  await new Promise((resolve) => socket.once('close', resolve));
  expect(received()).toMatch(/^HTTP\/1\.1 401 /);
  expect(requestLines()).toEqual([
    expect.objectContaining({ msg: 'request completed', res: { statusCode: 401 } }),
  ]);
  expect(await createCounts()).toEqual({ 'operation=create,code=3': 1 });
});

it.each([
  ['made', { blocked: false } as const, 1],
  ['refused', { blocked: true, reason: 'listed' } as const, 0],
])(
  'a client that hangs up after its body while the link is %s: no code is counted',
  async (_label, outcome, links) => {
    let decide: (verdict: UrlVerdict) => void = () => undefined;
    let checking: () => void = () => undefined;
    const checked = new Promise<void>((resolve) => (checking = resolve));
    verdict = () => {
      checking();
      return new Promise<UrlVerdict>((resolve) => (decide = resolve));
    };
    const body = JSON.stringify(f.body());
    const socket = connect(server.port, '127.0.0.1', () => {
      socket.write(
        [
          'POST /api/create HTTP/1.1',
          'Host: 127.0.0.1',
          `Authorization: Bearer ${f.token}`,
          'Content-Type: application/json',
          `Content-Length: ${Buffer.byteLength(body)}`,
          '',
          body,
        ].join('\r\n'),
      );
    });
    await checked;
    socket.destroy();
    await eventually(() => requestLines().length > 0, 'the log line');
    decide(outcome);
    await eventually(() => f.linkCount() === links, 'the outcome');
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(requestLines()).toEqual([expect.objectContaining({ msg: 'request aborted' })]);
    expect(requestLines()[0]).not.toHaveProperty('res');
    expect(await createCounts()).toEqual({});
    // The link exists all the same: it is counted as created.
    const created = await restCounts('shortlink_links_created_total');
    expect(created).toEqual(links === 1 ? { '': 1 } : {});
  },
);
