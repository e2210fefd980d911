import { status } from '@grpc/grpc-js';
import { Agent } from 'node:http';
import type { Socket } from 'node:net';
import type { ShortLink } from '../../core';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { within } from '../support/within';
import { logRecords } from '../support/service-log';
import { STOPPED_MESSAGE } from '../../gateway-http/stop-signals';
import { startChildService, type ChildService } from '../support/child-service';
import { expectEnvelope } from '../support/envelope';
import { grpcClient, grpcCreate } from '../support/grpc-client';
import { authorizationMetadata } from '../support/grpc-metadata';
import { sendCreatesOnBothGateways } from '../support/held-creates';
import { openSocket, pause, sendRaw, whenClosed } from '../support/raw-http';
import { startReputationGate, type ReputationGate } from '../support/reputation-gate';
import { startTestService, UNLIMITED, type TestService } from '../support/in-process-service';

jest.setTimeout(90_000);

/** Opens a create whose body is only half sent: the server holds the request until the rest. */
async function halfSentCreate(t: TestService, body: string) {
  const socket = await openSocket(t.port);
  const closed = whenClosed(socket);
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST /api/create HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Authorization: ${t.authorization}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
      body.slice(0, half),
  );
  return {
    socket,
    finish: () => socket.write(body.slice(half)),
    answer: closed.then(({ received }) => received),
  };
}

/** The envelope inside a raw HTTP/1.1 answer read off a socket. */
function envelopeOf(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const type = /content-type: ([^\r\n]+)/i.exec(head)?.[1];
  return expectEnvelope({ status, headers: { 'content-type': type }, text: body });
}

describe('graceful shutdown under load (in-process, REST and gRPC)', () => {
  let gate: ReputationGate;
  let t: TestService;

  beforeAll(async () => {
    gate = await startReputationGate();
    t = await startTestService({ ...UNLIMITED, ...gate.env, SHUTDOWN_TIMEOUT_MS: '60000' });
  });
  afterAll(async () => {
    gate.release();
    await t.service.shutdown();
    await gate.close();
  });

  it('finishes every accepted request, refuses new ones, stops, and loses no create', async () => {
    const restCount = 25;
    const grpcCount = 25;
    const halfCount = 5;
    const abortedCount = 5;
    const client = grpcClient(t.service.grpc.port);
    const metadata = authorizationMetadata(t.authorization);
    const grpcBody = (alias: string, url: string) => ({
      organizationKey: t.demo.organizationKey,
      urlGroupId: t.demo.urlGroupId,
      url,
      alias,
    });

    // Creates held in the core (at the reputation lookup) over REST and gRPC.
    const rest = Array.from({ length: restCount }, (_, i) =>
      sendRaw({
        port: t.port,
        headers: { 'Content-Type': 'application/json', Authorization: t.authorization },
        body: JSON.stringify(t.validBody({ alias: `rest-${i}`, url: `https://example.com/r${i}` })),
      }),
    );
    const grpc = Array.from({ length: grpcCount }, (_, i) =>
      grpcCreate(client, grpcBody(`grpc-${i}`, `https://example.com/g${i}`), metadata),
    );
    // Creates whose clients go away while they are held in the core.
    const aborted: Socket[] = [];
    for (let i = 0; i < abortedCount; i += 1) {
      const request = await halfSentCreate(
        t,
        JSON.stringify(t.validBody({ alias: `gone-${i}`, url: `https://example.com/x${i}` })),
      );
      request.finish();
      aborted.push(request.socket);
    }
    const held = restCount + grpcCount + abortedCount;
    expect(await within(gate.waitForLookups(held), 60_000)).not.toBe('timed out');
    for (const socket of aborted) socket.destroy();

    // Requests accepted by the server whose bodies are still arriving.
    let requestsSeen = 0;
    t.service.http.server.on('request', () => (requestsSeen += 1));
    const half = await Promise.all(
      Array.from({ length: halfCount }, (_, i) =>
        halfSentCreate(
          t,
          JSON.stringify(t.validBody({ alias: `half-${i}`, url: `https://example.com/h${i}` })),
        ),
      ),
    );
    while (requestsSeen < halfCount) await pause(10);

    const stopped = t.service.shutdown();

    // New work is refused cleanly: no connection for REST, UNAVAILABLE for gRPC.
    await expect(openSocket(t.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const lateClient = grpcClient(t.service.grpc.port);
    const late = await grpcCreate(
      lateClient,
      grpcBody('late', 'https://example.com/late'),
      metadata,
      20_000,
    );
    lateClient.close();
    expect(late.status.code).toBe(status.UNAVAILABLE);

    // The accepted requests complete and are answered.
    for (const request of half) request.finish();
    gate.release();
    const answered = new Set<string>();
    for (const answer of await Promise.all(rest)) {
      const envelope = expectEnvelope(answer);
      expect(envelope.code).toBe(0);
      answered.add((envelope.data as unknown as ShortLink).alias);
    }
    for (const outcome of await Promise.all(grpc)) {
      expect(outcome.error).toBeUndefined();
      answered.add(outcome.response!.shortLink!.alias);
    }
    for (const request of half) {
      const envelope = envelopeOf(await request.answer);
      expect(envelope.code).toBe(0);
      answered.add((envelope.data as unknown as ShortLink).alias);
    }
    client.close();
    expect(answered.size).toBe(restCount + grpcCount + halfCount);

    // Shutdown ends, within a generous bound (the drain deadline is far longer).
    expect(await within(stopped, 60_000)).not.toBe('timed out');

    // Nothing lost or half-written: every answered create is resolvable with what was
    // answered; every stored link was answered, or its client left while it was in the core.
    const stored = new Set<string>();
    const caller = t.service.runtime.core.createCaller({});
    for (const alias of answered) {
      const link = await caller.links.resolve({ domain: t.demo.domain, alias });
      expect(link.alias).toBe(alias);
      expect(link.url).toBe(`https://example.com/${alias[0]}${alias.split('-')[1]}`);
      stored.add(alias);
    }
    const goneStored = [];
    for (let i = 0; i < abortedCount; i += 1) {
      if (await t.store.links.findByAlias(t.demo.domain, `gone-${i}`)) goneStored.push(i);
    }
    expect(t.store.links.size).toBe(stored.size + goneStored.length);
  });
});

/**
 * For a describe: the process entry compiled to a temporary directory and a reputation gate that
 * holds creates in the core. `start()` starts `node <build>/gateway-http/main.js` on them (with a
 * drain long enough never to end first); it is killed after the describe if it still runs.
 */
function childServiceWithGate() {
  let build: TempBuild;
  let gate: ReputationGate;
  let service: ChildService | undefined;

  beforeAll(async () => {
    build = await compileToTemp();
    gate = await startReputationGate();
  });
  afterAll(async () => {
    gate.release();
    if (service && service.child.exitCode === null) service.child.kill('SIGKILL');
    await gate.close();
    await build.remove();
  });
  return {
    start: async () => {
      service = await startChildService(build.dir, {
        ...UNLIMITED,
        ...gate.env,
        SHUTDOWN_TIMEOUT_MS: '60000',
      });
      return { s: service, gate };
    },
  };
}

/**
 * The real process entry (`node dist/gateway-http/main.js`, compiled to a temporary directory)
 * and a real SIGTERM, with creates in flight over REST and gRPC.
 */
describe('SIGTERM to the process under load', () => {
  const held = childServiceWithGate();

  it('answers every accepted request, refuses new ones and exits 0', async () => {
    const { s, gate } = await held.start();
    const client = grpcClient(s.grpcPort);
    const metadata = authorizationMetadata(`Bearer ${s.token}`);
    // Keep-alive sockets, so `Connection: close` below is the server's choice, not the client's.
    const agent = new Agent({ keepAlive: true });
    const { rest, grpc } = sendCreatesOnBothGateways(s, { rest: 20, grpc: 20 }, [client], agent);
    expect(await within(gate.waitForLookups(40), 60_000)).not.toBe('timed out');

    s.child.kill('SIGTERM');
    await s.logged('shutting down');
    // main.ts logs this line and closes the listeners in the same turn of its event loop.
    let refused = false;
    for (let attempt = 0; attempt < 50 && !refused; attempt += 1) {
      try {
        (await openSocket(s.httpPort)).destroy();
        await pause(20);
      } catch (error) {
        refused = (error as NodeJS.ErrnoException).code === 'ECONNREFUSED';
      }
    }
    expect(refused).toBe(true);
    const lateClient = grpcClient(s.grpcPort);
    const late = await grpcCreate(
      lateClient,
      {
        organizationKey: s.organizationKey,
        urlGroupId: s.urlGroupId,
        url: 'https://example.com/late',
      },
      metadata,
      20_000,
    );
    lateClient.close();
    expect(late.status.code).toBe(status.UNAVAILABLE);

    gate.release();
    for (const answer of await Promise.all(rest)) {
      const envelope = expectEnvelope(answer);
      expect(envelope.code).toBe(0);
      expect(answer.headers.connection).toBe('close'); // no keep-alive socket outlives the drain
    }
    for (const outcome of await Promise.all(grpc)) {
      expect(outcome.error).toBeUndefined();
      expect(outcome.response?.shortLink?.alias).toMatch(/^grpc-\d+$/);
    }
    client.close();
    agent.destroy();
    expect(await within(s.exited, 60_000)).toBe(0);
    expect(s.output()).not.toMatch(/killed by timeout|"level":50/);
    // The log ends by saying so.
    expect(logRecords(s.output()).at(-1)?.msg).toBe(STOPPED_MESSAGE);
  });
});

/**
 * Ctrl-C on `npm start` reaches the server twice: from the terminal (the whole process group) and
 * from npm, which forwards it to the server running in place of its shell. The second must not
 * cut the drain short.
 */
describe('a stop signal repeated while the process drains', () => {
  const held = childServiceWithGate();

  it('is the same stop: every accepted request is answered and the exit code is 0', async () => {
    const { s, gate } = await held.start();
    const client = grpcClient(s.grpcPort);
    const { rest, grpc } = sendCreatesOnBothGateways(s, { rest: 5, grpc: 5 }, [client]);
    expect(await within(gate.waitForLookups(10), 60_000)).not.toBe('timed out');

    s.child.kill('SIGINT');
    await s.logged('shutting down');
    // The second after the first was taken: two at once are one pending signal to the kernel.
    s.child.kill('SIGINT');
    await pause(200);
    expect(s.child.exitCode).toBeNull();

    gate.release();
    for (const answer of await Promise.all(rest)) expect(expectEnvelope(answer).code).toBe(0);
    for (const outcome of await Promise.all(grpc)) expect(outcome.error).toBeUndefined();
    client.close();
    expect(await within(s.exited, 60_000)).toBe(0);
    expect(s.output()).not.toMatch(/second SIGINT|killed by timeout|"level":50/);
  });
});
