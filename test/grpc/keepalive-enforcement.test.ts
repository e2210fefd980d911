import { status } from '@grpc/grpc-js';
import type { ClientHttp2Session } from 'node:http2';
import type { GrpcConnectionLimits } from '../../gateway-grpc';
import {
  PING_WITHOUT_CALLS_INTERVAL_MS,
  PingPolicy,
} from '../../gateway-grpc/connection/ping-policy';
import { CreateShortLinkRequest } from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import type { CoreFixture } from '../support/core-fixture';
import { gatedUrlGuard, type GatedUrlGuard } from '../support/gated-url-guard';
import { startGrpcOnTestCore, validRequest, type GrpcFixture } from '../support/grpc-fixture';
import {
  closesWithin,
  grpcFrame,
  NGHTTP2_ENHANCE_YOUR_CALM,
  openSession,
  startCall,
} from './raw-session';

describe('PingPolicy (gRPC keepalive enforcement)', () => {
  const limits = {
    keepaliveMinTimeMs: 1000,
    keepalivePermitWithoutCalls: false,
    maxPingStrikes: 2,
  };

  function policy(given = limits) {
    let now = 0;
    const pings = new PingPolicy(given, () => now);
    return { pings, wait: (ms: number) => (now += ms) };
  }

  it('allows pings at the minimum period while calls are open', () => {
    const { pings, wait } = policy();
    pings.callStarted();
    for (let i = 0; i < 10; i++) {
      expect(pings.pinged()).toBe(false);
      wait(1000);
    }
  });

  it('closes on the strike after maxPingStrikes, while calls are open', () => {
    const { pings, wait } = policy();
    pings.callStarted();
    expect(pings.pinged()).toBe(false);
    wait(10);
    expect(pings.pinged()).toBe(false); // strike 1
    wait(10);
    expect(pings.pinged()).toBe(false); // strike 2
    wait(10);
    expect(pings.pinged()).toBe(true); // strike 3
  });

  it('counts any ping but the first within two hours without a call, unless permitted', () => {
    const { pings, wait } = policy();
    expect(pings.pinged()).toBe(false);
    wait(PING_WITHOUT_CALLS_INTERVAL_MS);
    expect(pings.pinged()).toBe(false);
    wait(60_000);
    expect(pings.pinged()).toBe(false);
    wait(60_000);
    expect(pings.pinged()).toBe(false);
    wait(60_000);
    expect(pings.pinged()).toBe(true);

    const permitted = policy({ ...limits, keepalivePermitWithoutCalls: true });
    for (let i = 0; i < 10; i++) {
      expect(permitted.pings.pinged()).toBe(false);
      permitted.wait(1000);
    }
  });

  it('clears the strikes when a call starts', () => {
    const { pings, wait } = policy();
    pings.callStarted();
    pings.pinged();
    pings.pinged();
    expect(pings.pinged()).toBe(false); // two strikes
    wait(5);
    pings.callEnded();
    pings.callStarted();
    pings.pinged();
    pings.pinged();
    expect(pings.pinged()).toBe(false); // two strikes again, not four
  });
});

describe('keepalive enforcement on the gRPC port', () => {
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

  function heldCreate(on: ClientHttp2Session) {
    const body = grpcFrame(
      CreateShortLinkRequest.encode(CreateShortLinkRequest.fromPartial(validRequest(f))).finish(),
    );
    return startCall(on, '/shortlink.v1.ShortLinkService/CreateShortLink', {
      headers: { authorization: `Bearer ${f.token}` },
      body,
      end: true,
    });
  }

  /** Sends `count` pings, each once the previous one is answered, `gapMs` apart. */
  async function ping(on: ClientHttp2Session, count: number, gapMs = 0) {
    for (let i = 0; i < count && !on.closed && !on.destroyed; i++) {
      await new Promise<void>((resolve) => on.ping(() => resolve()));
      if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
  }

  it('closes a connection pinging too often during a call with GOAWAY ENHANCE_YOUR_CALM too_many_pings', async () => {
    const on = await start({ keepaliveMinTimeMs: 60_000, maxPingStrikes: 2 });
    const goaway = new Promise<[number, string]>((resolve) =>
      on.once('goaway', (code: number, _last: number, data?: Buffer) =>
        resolve([code, data?.toString() ?? '']),
      ),
    );
    const call = heldCreate(on);
    await gate.entered;
    await ping(on, 4);
    expect(await goaway).toEqual([NGHTTP2_ENHANCE_YOUR_CALM, 'too_many_pings']);
    expect(await closesWithin(on, 5000)).toBe(true);
    expect((await call.ended).grpcStatus).toBeUndefined();
  });

  it('closes a connection pinging without a call', async () => {
    const on = await start({});
    await ping(on, 4);
    expect(await closesWithin(on, 5000)).toBe(true);
  });

  it('keeps a connection that pings no more often than allowed', async () => {
    const on = await start({ keepaliveMinTimeMs: 100, maxPingStrikes: 0 });
    const call = heldCreate(on);
    await gate.entered;
    await ping(on, 5, 150);
    expect(await closesWithin(on, 300)).toBe(false);
    gate.release();
    expect((await call.ended).grpcStatus).toBe(status.OK);
  });

  it('keeps a connection pinging without a call when that is permitted', async () => {
    const on = await start({ keepalivePermitWithoutCalls: true, keepaliveMinTimeMs: 0 });
    await ping(on, 10);
    expect(await closesWithin(on, 300)).toBe(false);
  });
});
