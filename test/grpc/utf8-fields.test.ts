import { ErrorCode } from '../../core';
import { status } from '@grpc/grpc-js';
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import {
  CreateShortLinkRequest,
  CreateShortLinkResponse,
  ResolveShortLinkRequest,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import type { CoreFixture } from '../support/core-fixture';
import { startGrpcOnTestCore, validRequest, type GrpcFixture } from '../support/grpc-fixture';
import { rawCall } from './raw-call';

/**
 * proto3 string fields must be UTF-8. A decoder that reads other bytes with U+FFFD in their place
 * would store a link holding text the client never sent; REST refuses a body that is not
 * well-formed text (code 20) for the same reason, and so does the gRPC gateway.
 */
let f: CoreFixture;
let grpc: GrpcFixture;

beforeAll(async () => ({ f, grpc } = await startGrpcOnTestCore()));
afterAll(() => grpc.close());

const CREATE = '/shortlink.v1.ShortLinkService/CreateShortLink';
const RESOLVE = '/shortlink.v1.ShortLinkService/ResolveShortLink';
const URL_FIELD = 3;
const ALIAS_FIELD = 2; // of ResolveShortLinkRequest

/** `message` with one more string field `field` holding exactly `bytes` (the last one wins). */
function withRawString(message: Uint8Array, field: number, bytes: Buffer): Uint8Array {
  const extra = new BinaryWriter()
    .uint32((field << 3) | 2)
    .bytes(bytes)
    .finish();
  return Buffer.concat([message, extra]);
}

const validCreate = () =>
  CreateShortLinkRequest.encode(CreateShortLinkRequest.fromPartial(validRequest(f))).finish();

describe('string fields that are not UTF-8', () => {
  it.each([
    ['an invalid byte', Buffer.from([0xff, 0xfe])],
    ['a cut-off sequence', Buffer.from([0xc3])],
    ['an encoded lone surrogate', Buffer.from([0xed, 0xa0, 0x80])],
    ['an overlong encoding', Buffer.from([0xc0, 0xaf])],
  ])(
    'refuse a create whose url holds %s: INVALID_ARGUMENT, code 20, nothing stored',
    async (_kind, bad) => {
      const before = f.linkCount();
      const url = Buffer.concat([Buffer.from('https://example.com/'), bad, Buffer.from('x')]);
      const outcome = await rawCall(
        grpc.running.port,
        CREATE,
        withRawString(validCreate(), URL_FIELD, url),
        {
          authorization: `Bearer ${f.token}`,
        },
      );
      expect(outcome).toMatchObject({
        grpcStatus: status.INVALID_ARGUMENT,
        shortlinkCode: String(ErrorCode.BODY_INVALID),
        message: 'A string field of the request message is not valid UTF-8.',
      });
      expect(f.linkCount()).toBe(before);
    },
  );

  it('are decided at their place in the precedence: after the token', async () => {
    const url = Buffer.from([0x68, 0xff]);
    const outcome = await rawCall(
      grpc.running.port,
      CREATE,
      withRawString(validCreate(), URL_FIELD, url),
      {},
    );
    expect(outcome).toMatchObject({
      grpcStatus: status.UNAUTHENTICATED,
      shortlinkCode: String(ErrorCode.TOKEN_MISSING),
    });
  });

  it('refuse a resolve whose alias is not UTF-8 rather than looking up U+FFFD', async () => {
    const message = ResolveShortLinkRequest.encode({ domain: 'acme.link', alias: 'x' }).finish();
    const outcome = await rawCall(
      grpc.running.port,
      RESOLVE,
      withRawString(message, ALIAS_FIELD, Buffer.from([0x61, 0xff])),
      {},
    );
    expect(outcome).toMatchObject({
      grpcStatus: status.INVALID_ARGUMENT,
      shortlinkCode: String(ErrorCode.BODY_INVALID),
    });
  });

  it('keep valid non-ASCII text as sent', async () => {
    const url = 'https://example.com/caf\u00e9/\u{1F600}';
    const message = CreateShortLinkRequest.encode(
      CreateShortLinkRequest.fromPartial(validRequest(f, { url })),
    ).finish();
    const outcome = await rawCall(grpc.running.port, CREATE, message, {
      authorization: `Bearer ${f.token}`,
    });
    expect(outcome.grpcStatus).toBe(status.OK);
    const response = CreateShortLinkResponse.decode(outcome.data.subarray(5));
    expect(response.shortLink?.url).toBe(url);
  });
});
