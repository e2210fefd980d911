import type { Socket } from 'node:net';
import pino from 'pino';
import type { CachedStore, DemoCredentials, MemoryStore } from '../../core';
import { createRuntime, loadConfig } from '../../core/runtime';
import { createHttpApp } from '../../gateway-http/app';
import { expressMessageClasses } from '../../gateway-http/express-message-classes';
import {
  HTTP_SERVER_DEFAULTS,
  listenHttp,
  type HttpServerOptions,
  type RunningHttpServer,
} from '../../gateway-http/http-server';
import { expectEnvelope } from '../support/envelope';
import { openSocket, pause, sendRaw, whenClosed } from '../support/raw-http';

jest.setTimeout(60_000);

interface SlowTestServer {
  http: RunningHttpServer;
  demo: DemoCredentials;
  store: MemoryStore;
  /** A well-behaved create from `localAddress`; resolves with its envelope code. */
  create(localAddress?: string): Promise<number>;
  stop(): Promise<void>;
}

/** The REST app on listenHttp with the given (short) timeouts, on the embedded store. */
async function serve(options: Omit<HttpServerOptions, 'port' | 'host'>): Promise<SlowTestServer> {
  const logger = pino({ level: 'silent' });
  const runtime = await createRuntime(
    loadConfig({
      LOG_LEVEL: 'silent',
      METRICS_PORT: '0',
      RATE_LIMIT_PER_MINUTE: '100000',
      DATA_DIR: ':memory:',
    }),
    logger,
  );
  const app = createHttpApp(runtime.core, { logger });
  const http = await listenHttp(app, {
    port: 0,
    host: '127.0.0.1',
    messageClasses: expressMessageClasses(app),
    ...options,
  });
  const demo = await runtime.provisionDemo(http.port);
  let served = 0;
  return {
    http,
    demo,
    // The runtime's store has the caches in front; links are counted in the store itself.
    store: (runtime.core.deps.store as CachedStore).backend as MemoryStore,
    async create(localAddress) {
      served += 1;
      const answer = await sendRaw({
        port: http.port,
        ...(localAddress ? { localAddress } : {}),
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${demo.token}` },
        body: JSON.stringify({
          organization_key: demo.organizationKey,
          url_group_id: demo.urlGroupId,
          url: `https://example.com/served/${served}`,
        }),
      });
      return expectEnvelope(answer).code;
    },
    async stop() {
      await http.close();
      await runtime.close();
    },
  };
}

function openConnections(http: RunningHttpServer): Promise<number> {
  return new Promise((resolve, reject) =>
    http.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

const SHORT = { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, keepAliveTimeoutMs: 500 };

/** Writes one byte of `text` at a time until it is all sent or the server closes the socket. */
async function trickle(socket: Socket, text: string, everyMs: number): Promise<number> {
  let sent = 0;
  for (const char of text) {
    if (socket.destroyed || socket.writableEnded) break;
    socket.write(char);
    sent += 1;
    await pause(everyMs);
  }
  return sent;
}

describe('slow and abusive clients', () => {
  describe('with short timeouts', () => {
    let s: SlowTestServer;
    beforeAll(async () => {
      s = await serve(SHORT);
    });
    afterAll(() => s.stop());

    it('closes a connection whose headers never finish, and serves others meanwhile', async () => {
      const sockets = await Promise.all(Array.from({ length: 20 }, () => openSocket(s.http.port)));
      const closed = sockets.map(whenClosed);
      for (const socket of sockets) socket.write('POST /api/create HTTP/1.1\r\nHost: x\r\n');
      expect(await s.create()).toBe(0);
      for (const outcome of await Promise.all(closed)) {
        expect(outcome.received).toMatch(/^HTTP\/1\.1 408 /);
      }
    });

    it('closes a connection trickling its headers one byte at a time', async () => {
      const socket = await openSocket(s.http.port);
      const closed = whenClosed(socket);
      const head = `POST /api/create HTTP/1.1\r\nHost: x\r\n${'X-Slow: y\r\n'.repeat(500)}\r\n`;
      const sent = await trickle(socket, head, 20);
      expect(sent).toBeLessThan(head.length);
      expect((await closed).received).toMatch(/^HTTP\/1\.1 408 /);
    });

    it('closes a connection trickling its body, stores nothing, and serves others', async () => {
      const before = s.store.links.size;
      const body = JSON.stringify({
        organization_key: s.demo.organizationKey,
        url_group_id: s.demo.urlGroupId,
        url: `https://example.com/${'p'.repeat(400)}`,
      });
      const socket = await openSocket(s.http.port);
      const closed = whenClosed(socket);
      socket.write(
        `POST /api/create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
          `Authorization: Bearer ${s.demo.token}\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      const trickled = trickle(socket, body, 20);
      expect(await s.create()).toBe(0);
      expect(await trickled).toBeLessThan(body.length);
      expect((await closed).received).toMatch(/^HTTP\/1\.1 408 /);
      expect(s.store.links.size - before).toBe(1); // the well-behaved create only
    });

    it('closes a connection that never sends a byte', async () => {
      const socket = await openSocket(s.http.port);
      const outcome = await whenClosed(socket);
      expect(outcome.received).toMatch(/^HTTP\/1\.1 408 /); // Node's answer to a silent client
    });

    it('closes an idle keep-alive connection after its answer', async () => {
      const socket = await openSocket(s.http.port);
      const closed = whenClosed(socket);
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
      const outcome = await closed;
      expect(outcome.received).toMatch(/^HTTP\/1\.1 200 /);
      expect(outcome.received.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    });

    it('refuses oversized headers with 431 and ignores a flood of small ones', async () => {
      const big = await sendRaw({
        port: s.http.port,
        method: 'GET',
        path: '/healthz',
        headers: { 'X-Big': 'b'.repeat(HTTP_SERVER_DEFAULTS.maxHeaderSizeBytes + 1) },
      }).then(
        (answer) => answer.status,
        (error: NodeJS.ErrnoException) => error.code,
      );
      // Node answers 431, though the client may see the reset first while still writing.
      expect([431, 'ECONNRESET', 'EPIPE']).toContain(big);
      // Host first: on Node 20 the headers past maxHeadersCount are dropped, and HTTP/1.1
      // requires Host. Node 22 and later refuse the request instead, with 431.
      const socket = await openSocket(s.http.port);
      const closed = whenClosed(socket);
      socket.end(
        `GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${'X-Flood: 1\r\n'.repeat(1_000)}\r\n`,
      );
      const refusesFloods = Number(process.versions.node.split('.')[0]) >= 22;
      expect((await closed).received).toMatch(
        refusesFloods ? /^HTTP\/1\.1 431 / : /^HTTP\/1\.1 200 /,
      );
      expect(await s.create()).toBe(0);
    });

    it('does not let a trickling client hold shutdown beyond the drain deadline', async () => {
      const own = await serve({ ...SHORT, drainTimeoutMs: 1_000 });
      const socket = await openSocket(own.http.port);
      const closed = whenClosed(socket);
      socket.write('POST /api/create HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n');
      void trickle(socket, 'x'.repeat(100_000), 20);
      await pause(50);
      await own.stop(); // Node stops its request timeout on close; the drain deadline remains
      await closed;
      expect(socket.destroyed).toBe(true);
    });
  });

  it('keeps serving while 200 idle connections are open', async () => {
    // Long timeouts, so the idle sockets are certainly still open when the create is answered.
    const s = await serve({ headersTimeoutMs: 60_000, requestTimeoutMs: 60_000 });
    try {
      const idle = await Promise.all(Array.from({ length: 200 }, () => openSocket(s.http.port)));
      for (const socket of idle.slice(0, 100)) socket.write('POST /api/create HTTP/1.1\r\n');
      expect(await s.create()).toBe(0);
      expect(idle.every((socket) => !socket.destroyed)).toBe(true);
      expect(await s.create()).toBe(0);
      for (const socket of idle) socket.destroy();
    } finally {
      await s.stop();
    }
  });

  it('caps the connections of one address without starving other addresses', async () => {
    const s = await serve({
      ...SHORT,
      headersTimeoutMs: 60_000,
      requestTimeoutMs: 60_000,
      maxConnectionsPerAddress: 20,
    });
    try {
      const sockets = await Promise.all(Array.from({ length: 40 }, () => openSocket(s.http.port)));
      let closedCount = 0;
      const twentyClosed = new Promise<void>((resolve) => {
        for (const socket of sockets) {
          socket.once('close', () => {
            closedCount += 1;
            if (closedCount === 20) resolve();
          });
        }
      });
      const outcomes = sockets.map(whenClosed);
      // 20 closed means the server saw all 40; the 20 it kept stay open (long timeouts).
      await twentyClosed;
      expect(sockets.filter((socket) => !socket.destroyed)).toHaveLength(20);
      await expect(s.create('127.0.0.1')).rejects.toThrow(/socket hang up|ECONNRESET/);
      // 127.0.0.0/8 is all loopback on Linux: a second client address on this machine.
      expect(await s.create('127.0.0.2')).toBe(0);
      for (const socket of sockets) socket.destroy();
      await Promise.all(outcomes);
      // The server sees the closes a little later; then the address's slots come back.
      while ((await openConnections(s.http)) > 0) await pause(20);
      expect(await s.create('127.0.0.1')).toBe(0);
    } finally {
      await s.stop();
    }
  });
});
