import { connect } from 'node:net';
import { startHttpOnTestCore, type HttpFixture } from '../support/http-fixture';
import { rawExchange } from '../support/raw-exchange';

/**
 * The answers node's HTTP server gives itself, before the service sees a request: a bare status
 * line with `Connection: close` and no body, then the connection is closed. The REST reference
 * (gateway-http/README.md, "Answers node gives itself") lists them; these tests hold it to that.
 */

let http: HttpFixture;

beforeEach(async () => ({ http } = await startHttpOnTestCore()));
afterEach(() => http.close());

const BARE_400 = 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n';

it('an HTTP/1.1 request without Host: 400 with an empty body, no X-Request-Id', async () => {
  const answer = await rawExchange(http.port, 'GET /hello HTTP/1.1\r\n\r\n');
  const [head, body] = answer.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  expect(head).toMatch(/\r\nConnection: close\r\n/i);
  expect(head).not.toMatch(/x-request-id/i);
  expect(body).toBe('0'); // the end of an empty chunked body
});

it('an HTTP/1.0 request without Host reaches the service (HTTP/1.0 has no Host)', async () => {
  const answer = await rawExchange(http.port, 'GET /hello HTTP/1.0\r\n\r\n');
  expect(answer).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
  expect(answer).toMatch(/\r\n\r\n\{"data":null,"code":24,"errors":\[.+\]\}$/);
});

it.each([
  ['a method node does not know, on /api/create', 'FOO /api/create HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['a method node does not know, elsewhere', 'FOO /hello HTTP/1.1\r\nHost: x\r\n\r\n'],
  [
    'a control character in a header value',
    'GET /hello HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n',
  ],
  ['a space in a header name', 'GET /hello HTTP/1.1\r\nHost: x\r\nX A: b\r\n\r\n'],
  [
    'both Content-Length and Transfer-Encoding',
    'POST /api/create HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  ],
])('%s: a bare 400', async (_label, head) => {
  expect(await rawExchange(http.port, head)).toBe(BARE_400);
});

it('a method node knows but the service does not serve reaches the service', async () => {
  const answer = await rawExchange(
    http.port,
    'PROPFIND /api/create HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  );
  expect(answer).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
  expect(answer).toMatch(/\{"data":null,"code":2,"errors":\["Method not allowed; use POST\."\]\}$/);
});

it('an Expect other than 100-continue reaches the service (node alone would answer a bare 417)', async () => {
  const create = await rawExchange(
    http.port,
    'POST /api/create HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
  );
  expect(create).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
  expect(create).toMatch(/\{"data":null,"code":3,"errors":\[.+\]\}$/);
  const health = await http.request({ path: '/healthz', headers: { expect: 'foo' } });
  expect([health.status, health.json()]).toEqual([200, { status: 'ok' }]);
});

it('CONNECT reaches the service too: 405 on /api/create, 404 elsewhere, then the connection closes', async () => {
  const create = await rawExchange(http.port, 'CONNECT /api/create HTTP/1.1\r\nHost: x\r\n\r\n');
  expect(create).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
  expect(create).toMatch(/\r\nAllow: POST\r\n/);
  expect(create).toMatch(/\{"data":null,"code":2,"errors":\["Method not allowed; use POST\."\]\}$/);
  const authority = await rawExchange(
    http.port,
    'CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n',
  );
  expect(authority).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
  expect(authority).toMatch(/\{"data":null,"code":24,"errors":\[.+\]\}$/);
});

it('CONNECT: the server closes its socket even when the client keeps its side open', async () => {
  // node's timeouts no longer watch a socket handed over for CONNECT: an answer that only ended
  // the server's side left the socket open for as long as the client kept its own. Once the
  // server has closed it, what the client sends after the answer is refused (a reset).
  const outcome = await new Promise<'closed' | 'open'>((resolve) => {
    const socket = connect({ port: http.port, host: '127.0.0.1', allowHalfOpen: true }, () =>
      socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n'),
    );
    const finish = (result: 'closed' | 'open') => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish('open'), 2_000);
    socket.resume();
    socket.on('error', () => finish('closed'));
    socket.on('end', () => {
      socket.write('more');
      setTimeout(() => socket.write('and more'), 200);
    });
  });
  expect(outcome).toBe('closed');
});

it('a request head over 16 KiB: a bare 431', async () => {
  const answer = await rawExchange(
    http.port,
    `GET /hello HTTP/1.1\r\nHost: x\r\nX-A: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
  );
  expect(answer).toBe('HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n');
});
