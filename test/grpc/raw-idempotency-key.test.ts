import { connect } from 'node:http2';
import { status } from '@grpc/grpc-js';
import { CreateShortLinkRequest } from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import type { CoreFixture } from '../support/core-fixture';
import { MALFORMED_KEYS } from '../support/idempotency';
import { startGrpcOnTestCore, validRequest, type GrpcFixture } from './grpc-fixture';

/**
 * Keys no grpc-js client can send (control and non-ASCII characters), sent by a raw HTTP/2
 * client as any other gRPC implementation or a hand-made request could. grpc-js itself would
 * drop such a metadata value without a word, which would run the request without its key.
 */
let f: CoreFixture;
let grpc: GrpcFixture;

beforeAll(async () => ({ f, grpc } = await startGrpcOnTestCore()));
afterAll(() => grpc.close());

interface RawOutcome {
  grpcStatus: number;
  shortlinkCode: string | undefined;
  message: string;
}

function rawCreate(key: string | string[]): Promise<RawOutcome> {
  const message = CreateShortLinkRequest.encode(
    CreateShortLinkRequest.fromPartial(validRequest(f)),
  ).finish();
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  Buffer.from(message).copy(frame, 5);
  return new Promise((resolve, reject) => {
    const session = connect(`http://127.0.0.1:${grpc.running.port}`);
    session.on('error', reject);
    const request = session.request({
      ':method': 'POST',
      ':path': '/shortlink.v1.ShortLinkService/CreateShortLink',
      'content-type': 'application/grpc',
      te: 'trailers',
      authorization: `Bearer ${f.token}`,
      'idempotency-key': key,
    });
    request.on('error', reject);
    const headers: Record<string, string> = {};
    const keep = (received: Record<string, unknown>) => {
      for (const [name, value] of Object.entries(received)) {
        if (typeof value === 'string') headers[name] = value;
      }
    };
    request.on('response', keep);
    request.on('trailers', keep);
    request.resume();
    request.on('end', () => {
      session.close();
      resolve({
        grpcStatus: Number(headers['grpc-status']),
        shortlinkCode: headers['shortlink-error-code'],
        message: decodeURIComponent(headers['grpc-message'] ?? ''),
      });
    });
    request.end(frame);
  });
}

describe('idempotency-key values grpc-js clients cannot send', () => {
  it.each(MALFORMED_KEYS.filter((bad) => bad.http && !/^[ -~]*$/.test(bad.key)))(
    'answers INVALID_ARGUMENT, code 27 for a key with $kind (never runs without the key)',
    async (bad) => {
      const before = f.linkCount();
      const outcome = await rawCreate(bad.key);
      expect(outcome).toMatchObject({
        grpcStatus: status.INVALID_ARGUMENT,
        shortlinkCode: '27',
      });
      expect(outcome.message).toMatch(bad.message);
      expect(f.linkCount()).toBe(before);
    },
  );

  it('answers INVALID_ARGUMENT, code 27 for a key sent twice, saying so', async () => {
    const before = f.linkCount();
    const outcome = await rawCreate(['one', 'two']);
    expect(outcome).toEqual({
      grpcStatus: status.INVALID_ARGUMENT,
      shortlinkCode: '27',
      message: 'The idempotency key was sent more than once: send it once.',
    });
    expect(f.linkCount()).toBe(before);
  });

  it('still runs a valid key sent the same way (the raw client is a working client)', async () => {
    const before = f.linkCount();
    const outcome = await rawCreate('raw-valid-key');
    expect(outcome.grpcStatus).toBe(status.OK);
    expect(f.linkCount()).toBe(before + 1);
    expect((await rawCreate('raw-valid-key')).grpcStatus).toBe(status.OK);
    expect(f.linkCount()).toBe(before + 1);
  });
});
