import { status } from '@grpc/grpc-js';
import type { GrpcConnectionLimits } from '../../gateway-grpc';
import { ResolveShortLinkRequest } from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { ACME_DOMAIN } from '../support/core-fixture';
import { startGrpcOnTestCore, type GrpcFixture } from '../support/grpc-fixture';
import {
  closesWithin,
  grpcFrame,
  openSession,
  silentConnection,
  startCall,
  timeUntil,
} from './raw-session';

const RESOLVE = '/shortlink.v1.ShortLinkService/ResolveShortLink';
const resolveBody = grpcFrame(
  ResolveShortLinkRequest.encode({ domain: ACME_DOMAIN, alias: 'nothing-here' }).finish(),
);

let grpc: GrpcFixture | undefined;
afterEach(async () => {
  await grpc?.close();
  grpc = undefined;
});

async function start(limits: Partial<GrpcConnectionLimits>) {
  ({ grpc } = await startGrpcOnTestCore({}, { connectionLimits: limits }));
  return grpc.running.port;
}

describe('the gRPC handshake deadline', () => {
  it('closes TCP connections that never send a byte once it passes', async () => {
    const port = await start({ handshakeTimeoutMs: 300 });
    const silent = await Promise.all(Array.from({ length: 20 }, () => silentConnection(port)));
    const lived = await Promise.all(silent.map((socket) => timeUntil(socket, 'close')));
    // Not before the deadline (a little early for the time connecting took), and soon after it.
    expect(Math.min(...lived)).toBeGreaterThanOrEqual(200);
    expect(Math.max(...lived)).toBeLessThan(5000);
  });

  it('closes, with a GOAWAY, a connection that sent its preface but no call', async () => {
    const port = await start({ handshakeTimeoutMs: 300 });
    const session = await openSession(port);
    const goaway = new Promise<number>((resolve) => session.once('goaway', resolve));
    expect(await closesWithin(session, 5000)).toBe(true);
    expect(await goaway).toBe(0);
  });

  it('leaves a connection alone once it has made a call, however long it then waits', async () => {
    const port = await start({ handshakeTimeoutMs: 200 });
    const session = await openSession(port);
    try {
      const first = startCall(session, RESOLVE, { body: resolveBody, end: true });
      expect((await first.ended).grpcStatus).toBe(status.NOT_FOUND);
      expect(await closesWithin(session, 800)).toBe(false);
      const second = startCall(session, RESOLVE, { body: resolveBody, end: true });
      expect((await second.ended).grpcStatus).toBe(status.NOT_FOUND);
    } finally {
      session.close();
    }
  });
});

describe('the per-address connection cap', () => {
  it('closes connections past the cap at once, and takes new ones when some have closed', async () => {
    const port = await start({ maxConnectionsPerAddress: 3 });
    const held = await Promise.all([1, 2, 3].map(() => openSession(port)));
    try {
      for (const session of held) {
        const call = startCall(session, RESOLVE, { body: resolveBody, end: true });
        expect((await call.ended).grpcStatus).toBe(status.NOT_FOUND);
      }
      const refused = await silentConnection(port);
      const refusedAfter = timeUntil(refused, 'close');
      expect(await closesWithin(refused, 2000)).toBe(true);
      expect(await refusedAfter).toBeLessThan(2000);
      // The held connections still serve.
      const call = startCall(held[0]!, RESOLVE, { body: resolveBody, end: true });
      expect((await call.ended).grpcStatus).toBe(status.NOT_FOUND);

      const gone = held.pop()!;
      gone.close();
      await closesWithin(gone, 2000);
      // The server sees the close a moment after the client: retry until the slot is free.
      let next: Awaited<ReturnType<typeof openSession>> | undefined;
      for (let attempt = 0; next === undefined && attempt < 50; attempt++) {
        next = await openSession(port).catch(() => undefined);
        if (next === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(next).toBeDefined();
      held.push(next!);
      const onNew = startCall(next!, RESOLVE, { body: resolveBody, end: true });
      expect((await onNew.ended).grpcStatus).toBe(status.NOT_FOUND);
    } finally {
      for (const session of held) session.close();
    }
  });
});
