import { ErrorCode } from '../../core';
import { status } from '@grpc/grpc-js';
import { CreateShortLinkRequest } from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import type { CoreFixture } from '../support/core-fixture';
import { MALFORMED_KEYS } from '../support/idempotency';
import { startGrpcOnTestCore, validRequest, type GrpcFixture } from '../support/grpc-fixture';
import { rawCall, type RawOutcome } from './raw-call';

/**
 * Keys no grpc-js client can send (control and non-ASCII characters, tabs), sent by a raw HTTP/2
 * client as any other gRPC implementation or a hand-made request could. grpc-js itself would
 * drop a non-ASCII value, and node's HTTP/2 layer one with a control character or a space or tab
 * at either end, both without a word, which would run the request without its key.
 */
let f: CoreFixture;
let grpc: GrpcFixture;

beforeAll(async () => ({ f, grpc } = await startGrpcOnTestCore()));
afterAll(() => grpc.close());

function rawCreate(key: string | string[]): Promise<RawOutcome> {
  const message = CreateShortLinkRequest.encode(
    CreateShortLinkRequest.fromPartial(validRequest(f)),
  ).finish();
  return rawCall(grpc.running.port, '/shortlink.v1.ShortLinkService/CreateShortLink', message, {
    authorization: `Bearer ${f.token}`,
    'idempotency-key': key,
  });
}

describe('idempotency-key values grpc-js clients cannot send', () => {
  it.each(MALFORMED_KEYS.filter((bad) => !/^[ -~]*$/.test(bad.key)))(
    'answers INVALID_ARGUMENT, code 27 for a key with $kind (never runs without the key)',
    async (bad) => {
      const before = f.linkCount();
      const outcome = await rawCreate(bad.key);
      expect(outcome).toMatchObject({
        grpcStatus: status.INVALID_ARGUMENT,
        shortlinkCode: String(ErrorCode.IDEMPOTENCY_KEY_INVALID),
      });
      expect(outcome.message).toMatch(bad.message);
      expect(f.linkCount()).toBe(before);
    },
  );

  it('answers INVALID_ARGUMENT, code 27 for a key sent twice, saying so', async () => {
    const before = f.linkCount();
    const outcome = await rawCreate(['one', 'two']);
    expect(outcome).toMatchObject({
      grpcStatus: status.INVALID_ARGUMENT,
      shortlinkCode: String(ErrorCode.IDEMPOTENCY_KEY_INVALID),
      message: 'The idempotency key was sent more than once: send it once.',
    });
    expect(f.linkCount()).toBe(before);
  });

  it.each([
    ['a tab at the end', 'raw-tab-end\t'],
    ['a tab at the start', '\traw-tab-start'],
    ['spaces and tabs around it', ' \t raw-around \t '],
  ])('takes a key with %s as the key without them, as REST does', async (_kind, key) => {
    const before = f.linkCount();
    const first = await rawCreate(key);
    expect(first.grpcStatus).toBe(status.OK);
    const again = await rawCreate(key.trim());
    expect([again.grpcStatus, again.data]).toEqual([status.OK, first.data]);
    expect(f.linkCount()).toBe(before + 1);
  });

  it.each([
    ['a tab only', '\t', /must not be empty/],
    ['a control character at the end, after a space', 'raw-ctl \u0001', /visible ASCII/],
    ['a line feed inside', 'raw\nkey', /visible ASCII/],
  ])('answers INVALID_ARGUMENT, code 27 for a key of %s', async (_kind, key, message) => {
    const before = f.linkCount();
    const outcome = await rawCreate(key);
    expect(outcome).toMatchObject({
      grpcStatus: status.INVALID_ARGUMENT,
      shortlinkCode: String(ErrorCode.IDEMPOTENCY_KEY_INVALID),
    });
    expect(outcome.message).toMatch(message);
    expect(f.linkCount()).toBe(before);
  });

  it('answers 27 for a key sent twice when one of them has a space around it', async () => {
    const before = f.linkCount();
    const outcome = await rawCreate(['raw-twice ', 'raw-twice']);
    expect(outcome).toMatchObject({
      grpcStatus: status.INVALID_ARGUMENT,
      shortlinkCode: String(ErrorCode.IDEMPOTENCY_KEY_INVALID),
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
