import { ErrorCode } from '../../core';
import { status } from '@grpc/grpc-js';
import { CreateShortLinkRequest } from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import type { CoreFixture } from '../support/core-fixture';
import { captureLogs } from '../support/log-capture';
import { startGrpcOnTestCore, validRequest, type GrpcFixture } from '../support/grpc-fixture';
import { rawCall } from './raw-call';

/**
 * `authorization` values no grpc-js client can send (control and non-ASCII characters), sent by
 * a raw HTTP/2 client. grpc-js would drop such a value, logging it, and the core would see no
 * header at all (code 3); the contract says a header not of the form `Bearer <token>` is
 * malformed (10), as REST answers for the same bytes. (A control character other than tab never
 * gets this far: nghttp2 drops such a header field, as node's HTTP/1 parser refuses it for REST.)
 */
const logs = captureLogs();
let f: CoreFixture;
let grpc: GrpcFixture;

beforeAll(async () => ({ f, grpc } = await startGrpcOnTestCore({}, { logger: logs.logger })));
afterAll(() => grpc.close());

function rawCreate(authorization: string) {
  const message = CreateShortLinkRequest.encode(
    CreateShortLinkRequest.fromPartial(validRequest(f)),
  ).finish();
  return rawCall(grpc.running.port, '/shortlink.v1.ShortLinkService/CreateShortLink', message, {
    authorization,
  });
}

describe('authorization values grpc-js clients cannot send', () => {
  it.each([
    ['a trailing no-break space (a pasted token)', (token: string) => `Bearer ${token}\u00a0`],
    ['a no-break space after Bearer', (token: string) => `Bearer\u00a0${token}`],
    ['a tab after Bearer', (token: string) => `Bearer\t${token}`],
    ['a non-ASCII letter', (token: string) => `Bearer ${token}é`],
  ])('answers UNAUTHENTICATED, code 10 for %s, never logging the token', async (_kind, value) => {
    const before = f.linkCount();
    const outcome = await rawCreate(value(f.token));
    expect(outcome).toMatchObject({
      grpcStatus: status.UNAUTHENTICATED,
      shortlinkCode: String(ErrorCode.TOKEN_MALFORMED),
      message: 'The Authorization header must be "Bearer <token>".',
    });
    expect(f.linkCount()).toBe(before);
    expect(logs.text()).not.toContain(f.token);
  });

  it('still serves the valid token sent the same way (the raw client is a working client)', async () => {
    const before = f.linkCount();
    const outcome = await rawCreate(`Bearer ${f.token}`);
    expect(outcome.grpcStatus).toBe(status.OK);
    expect(f.linkCount()).toBe(before + 1);
  });
});
