import { status } from '@grpc/grpc-js';
import type { ClientHttp2Session } from 'node:http2';
import type { GrpcConnectionLimits } from '../../gateway-grpc';
import { CreateShortLinkRequest } from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import type { CoreFixture } from '../support/core-fixture';
import { gatedUrlGuard, type GatedUrlGuard } from '../support/gated-url-guard';
import { startGrpcOnTestCore, validRequest, type GrpcFixture } from '../support/grpc-fixture';
import { closesWithin, grpcFrame, openSession, startCall, timeUntil } from './raw-session';

const CREATE = '/shortlink.v1.ShortLinkService/CreateShortLink';

let f: CoreFixture;
let grpc: GrpcFixture;
let gate: GatedUrlGuard;
let session: ClientHttp2Session | undefined;
afterEach(async () => {
  gate.release();
  session?.destroy();
  session = undefined;
  await grpc.close();
});

async function start(limits: Partial<GrpcConnectionLimits>) {
  gate = gatedUrlGuard();
  ({ f, grpc } = await startGrpcOnTestCore(
    { urlGuard: gate.guard },
    { connectionLimits: limits, shutdownTimeoutMs: 1000 },
  ));
  session = await openSession(grpc.running.port);
  return session;
}

/** A complete create call on `on`, held in the core by the gate until it is released. */
function heldCreate(on: ClientHttp2Session) {
  const body = grpcFrame(
    CreateShortLinkRequest.encode(CreateShortLinkRequest.fromPartial(validRequest(f))).finish(),
  );
  return startCall(on, CREATE, {
    headers: { authorization: `Bearer ${f.token}` },
    body,
    end: true,
  });
}

/** The next GOAWAY `on` receives: its code and debug data, and when it came. */
function nextGoaway(on: ClientHttp2Session) {
  const started = Date.now();
  return new Promise<{ code: number; data: string; after: number }>((resolve) =>
    on.once('goaway', (code: number, _last: number, data?: Buffer) =>
      resolve({ code, data: data?.toString() ?? '', after: Date.now() - started }),
    ),
  );
}

describe('the maximum connection age', () => {
  it('sends a GOAWAY at the age and lets a running call finish within the grace', async () => {
    const on = await start({ maxConnectionAgeMs: 400, maxConnectionAgeGraceMs: 20_000 });
    const goaway = nextGoaway(on);
    const call = heldCreate(on);
    await gate.entered;
    const told = await goaway;
    expect(told.code).toBe(0);
    // 400 ms ± 10% jitter, from the server's accept (a little before this session connected).
    expect(told.after).toBeGreaterThanOrEqual(300);
    gate.release();
    expect(await call.ended).toMatchObject({ grpcStatus: status.OK, closedWhileSending: false });
    expect(f.linkCount()).toBe(1);
    // Nothing left on it, the connection closes.
    expect(await closesWithin(on, 5000)).toBe(true);
  });

  it('cuts a call still running when the grace is over', async () => {
    const on = await start({ maxConnectionAgeMs: 300, maxConnectionAgeGraceMs: 300 });
    const call = heldCreate(on);
    await gate.entered;
    const lived = await timeUntil(on, 'close');
    expect(lived).toBeLessThan(5000);
    const end = await call.ended;
    expect(end.grpcStatus).toBeUndefined();
  });

  it('is off at 0: a connection lives on', async () => {
    const on = await start({ maxConnectionAgeMs: 0, maxConnectionIdleMs: 0 });
    const call = heldCreate(on);
    await gate.entered;
    expect(await closesWithin(on, 1000)).toBe(false);
    gate.release();
    expect((await call.ended).grpcStatus).toBe(status.OK);
  });
});

describe('the maximum idle time', () => {
  it('closes a connection without a call for that long, never one with a call running', async () => {
    const on = await start({ maxConnectionIdleMs: 300 });
    const call = heldCreate(on);
    await gate.entered;
    // A call is running: not idle, however long it takes.
    expect(await closesWithin(on, 900)).toBe(false);
    const goaway = nextGoaway(on);
    gate.release();
    expect((await call.ended).grpcStatus).toBe(status.OK);
    const told = await goaway;
    expect(told.code).toBe(0);
    expect(told.after).toBeGreaterThanOrEqual(250);
    expect(await closesWithin(on, 5000)).toBe(true);
  });
});
