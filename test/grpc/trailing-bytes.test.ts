import { ErrorCode } from '../../core';
import { status } from '@grpc/grpc-js';
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import {
  CreateShortLinkRequest,
  ResolveShortLinkRequest,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import type { CoreFixture } from '../support/core-fixture';
import { startGrpcOnTestCore, validRequest, type GrpcFixture } from '../support/grpc-fixture';
import { rawCall } from './raw-call';

/**
 * A field number 0 or an end-group tag outside a group is not valid protobuf. ts-proto's decode
 * stops reading there, so without a check the fields after it were dropped silently: the link
 * was created with a generated alias instead of the one sent, and bytes that are not UTF-8 after
 * it went unseen. Such a message is code 20, as any other undecodable one.
 */
let f: CoreFixture;
let grpc: GrpcFixture;

beforeAll(async () => ({ f, grpc } = await startGrpcOnTestCore()));
afterAll(() => grpc.close());

const CREATE = '/shortlink.v1.ShortLinkService/CreateShortLink';
const RESOLVE = '/shortlink.v1.ShortLinkService/ResolveShortLink';

const aliasField = (alias: string) =>
  new BinaryWriter()
    .uint32((4 << 3) | 2)
    .string(alias)
    .finish();

describe('a request message with a tag that ends decoding early', () => {
  it.each([
    ['a field number 0', Buffer.from([0x00])],
    ['an end-group tag outside a group', Buffer.from([0x0c])],
    ['a group whose end tag is of another field', Buffer.from([0x33, 0x3c])],
  ])('is refused with code 20 when it holds %s, and nothing is stored', async (_kind, tag) => {
    const before = f.linkCount();
    const message = Buffer.concat([
      CreateShortLinkRequest.encode(CreateShortLinkRequest.fromPartial(validRequest(f))).finish(),
      tag,
      aliasField('wanted-alias'),
    ]);
    const outcome = await rawCall(grpc.running.port, CREATE, message, {
      authorization: `Bearer ${f.token}`,
    });
    expect(outcome).toMatchObject({
      grpcStatus: status.INVALID_ARGUMENT,
      shortlinkCode: String(ErrorCode.BODY_INVALID),
      message: 'The request message could not be decoded.',
    });
    expect(f.linkCount()).toBe(before);
  });

  it('is refused with code 20 when the tag is its last byte', async () => {
    const message = Buffer.concat([
      CreateShortLinkRequest.encode(CreateShortLinkRequest.fromPartial(validRequest(f))).finish(),
      Buffer.from([0x00]),
    ]);
    const outcome = await rawCall(grpc.running.port, CREATE, message, {
      authorization: `Bearer ${f.token}`,
    });
    expect(outcome).toMatchObject({
      grpcStatus: status.INVALID_ARGUMENT,
      shortlinkCode: String(ErrorCode.BODY_INVALID),
    });
  });

  it('still accepts unknown fields and well-formed groups', async () => {
    const message = Buffer.concat([
      CreateShortLinkRequest.encode(CreateShortLinkRequest.fromPartial(validRequest(f))).finish(),
      Buffer.from([0x33, 0x34]), // an empty group of field 6
      new BinaryWriter()
        .uint32((99 << 3) | 2)
        .string('unknown')
        .finish(),
    ]);
    const outcome = await rawCall(grpc.running.port, CREATE, message, {
      authorization: `Bearer ${f.token}`,
    });
    expect(outcome).toMatchObject({ grpcStatus: status.OK });
  });

  it('is refused by ResolveShortLink too', async () => {
    const message = Buffer.concat([
      ResolveShortLinkRequest.encode({ domain: 'acme.link', alias: 'x' }).finish(),
      Buffer.from([0x00, 0x12, 0x01, 0xff]),
    ]);
    const outcome = await rawCall(grpc.running.port, RESOLVE, message, {});
    expect(outcome).toMatchObject({
      grpcStatus: status.INVALID_ARGUMENT,
      shortlinkCode: String(ErrorCode.BODY_INVALID),
    });
  });
});
