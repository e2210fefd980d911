import { Metadata, status } from '@grpc/grpc-js';
import {
  CreateShortLinkRequest,
  ResolveShortLinkRequest,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { MessageCounter } from '../../gateway-grpc/connection/message-deadline';
import { ACME_DOMAIN, type CoreFixture } from '../support/core-fixture';
import { captureLogs } from '../support/log-capture';
import { startGrpcOnTestCore, validRequest, type GrpcFixture } from '../support/grpc-fixture';
import { grpcFrame, NGHTTP2_NO_ERROR, openSession, startCall } from './raw-session';

const CREATE = '/shortlink.v1.ShortLinkService/CreateShortLink';
const RESOLVE = '/shortlink.v1.ShortLinkService/ResolveShortLink';
const MESSAGE_TIMEOUT_MS = 400;

let f: CoreFixture;
let grpc: GrpcFixture;
let logs: ReturnType<typeof captureLogs>;
beforeEach(async () => {
  logs = captureLogs();
  ({ f, grpc } = await startGrpcOnTestCore(
    {},
    { logger: logs.logger, connectionLimits: { messageTimeoutMs: MESSAGE_TIMEOUT_MS } },
  ));
});
afterEach(() => grpc.close());

const createBody = () =>
  grpcFrame(
    CreateShortLinkRequest.encode(CreateShortLinkRequest.fromPartial(validRequest(f))).finish(),
  );
const auth = () => ({ authorization: `Bearer ${f.token}` });

describe('MessageCounter', () => {
  it('counts complete gRPC messages, however the bytes are cut', () => {
    const frames = Buffer.concat([
      grpcFrame(Buffer.from('abc')),
      grpcFrame(Buffer.alloc(0)),
      grpcFrame(Buffer.alloc(300, 1)),
    ]);
    const whole = new MessageCounter();
    expect(whole.chunk(frames)).toBe(3);
    const byteByByte = new MessageCounter();
    let counted = 0;
    for (const byte of frames) counted += byteByByte.chunk(Buffer.from([byte]));
    expect(counted).toBe(3);
    const cut = new MessageCounter();
    expect(cut.chunk(frames.subarray(0, 10))).toBe(1);
    expect(cut.chunk(frames.subarray(10))).toBe(2);
  });
});

describe('the deadline for a call’s request to arrive', () => {
  it.each([
    ['no message at all', Buffer.alloc(0)],
    ['half a message', undefined],
    ['a whole message but never the end of the request', 'whole'],
  ] as const)(
    'ends a call sending %s with DEADLINE_EXCEEDED and resets its stream; nothing runs',
    async (_what, sent) => {
      const session = await openSession(grpc.running.port);
      try {
        const whole = createBody();
        const body = sent === 'whole' ? whole : (sent ?? whole.subarray(0, 10));
        const started = Date.now();
        const call = startCall(session, CREATE, { headers: auth(), body });
        const end = await call.ended;
        expect(Date.now() - started).toBeGreaterThanOrEqual(MESSAGE_TIMEOUT_MS - 50);
        expect(end).toMatchObject({
          grpcStatus: status.DEADLINE_EXCEEDED,
          message: `the request did not arrive within ${MESSAGE_TIMEOUT_MS} ms`,
          rstCode: NGHTTP2_NO_ERROR,
          // The server closed the stream: the client never ended its request.
          closedWhileSending: true,
        });
        expect(f.linkCount()).toBe(0);
        expect(logs.records().map((record) => record.msg)).toContain(
          'call ended: its request did not arrive in time',
        );
        // The connection is unharmed.
        const next = startCall(session, CREATE, { headers: auth(), body: whole, end: true });
        expect((await next.ended).grpcStatus).toBe(status.OK);
        expect(f.linkCount()).toBe(1);
      } finally {
        session.close();
      }
    },
  );

  it('releases every stalled call of many connections, and serves the next client', async () => {
    const sessions = await Promise.all(
      Array.from({ length: 10 }, () => openSession(grpc.running.port)),
    );
    try {
      const stalled = sessions.flatMap((session) =>
        Array.from({ length: 20 }, () =>
          startCall(session, CREATE, { headers: auth(), body: createBody().subarray(0, 7) }),
        ),
      );
      const ends = await Promise.all(stalled.map((call) => call.ended));
      expect(ends.every((end) => end.grpcStatus === status.DEADLINE_EXCEEDED)).toBe(true);
      expect(ends.every((end) => end.closedWhileSending)).toBe(true);
      expect(f.linkCount()).toBe(0);
      const served = await grpc.create(validRequest(f), f.token);
      expect(served.error).toBeUndefined();
    } finally {
      for (const session of sessions) session.close();
    }
  });

  it('lets a request that keeps arriving take longer than the deadline in all', async () => {
    const session = await openSession(grpc.running.port);
    try {
      const message = ResolveShortLinkRequest.encode({ domain: ACME_DOMAIN, alias: 'none' });
      const frame = grpcFrame(message.finish());
      const call = startCall(session, RESOLVE, {});
      // The headers, then the message a while later, then the end a while after it: each part
      // within the deadline, the whole longer than it.
      await new Promise((resolve) => setTimeout(resolve, MESSAGE_TIMEOUT_MS * 0.6));
      call.stream.write(frame);
      await new Promise((resolve) => setTimeout(resolve, MESSAGE_TIMEOUT_MS * 0.6));
      call.end();
      expect(await call.ended).toMatchObject({
        grpcStatus: status.NOT_FOUND,
        closedWhileSending: false,
      });
    } finally {
      session.close();
    }
  });

  it('does not end a call the server is still answering, past the deadline', async () => {
    // A grpc-js client's call: its request is complete at once; the answer may take longer.
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${f.token}`);
    const outcome = await grpc.create(validRequest(f), metadata, {
      deadline: Date.now() + 10_000,
    });
    expect(outcome.error).toBeUndefined();
  });
});
