import { Metadata, status } from '@grpc/grpc-js';
import { ErrorCode, reasonOf, type ErrorCodeNumber } from '../../core';
import { GRPC_STATUS_BY_REASON } from '../../gateway-grpc';
import type { CreateShortLinkResponse } from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import type { CoreFixture } from '../support/core-fixture';
import type { CallOutcome } from '../support/grpc-call';
import { expectRateLimitHeaders } from '../support/http-assertions';
import { startHttp, type HttpFixture } from '../support/http-fixture';
import { MALFORMED_KEYS } from '../support/idempotency';
import {
  describeKeyedCreateScenarios,
  replayedFlag,
  type KeyedCreateTransport,
  type KeyedOutcome,
} from '../support/keyed-create';
import {
  metadataText,
  startGrpcOnTestCore,
  validRequest,
  type GrpcFixture,
} from '../support/grpc-fixture';

/** `authorization: Bearer <token>`, and `idempotency-key: <key>` unless there is no key. */
function keyed(key: string | undefined, token: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  if (key !== undefined) metadata.set('idempotency-key', key);
  return metadata;
}

/**
 * A CreateShortLink call's outcome, transport-neutral. The reason is the trailer
 * `shortlink-error-code` (there on every error, never on a success); rate-limit trailers, when
 * there are any, are checked to be the complete, coherent set.
 */
function grpcOutcome({ error, response, status: call }: CallOutcome<CreateShortLinkResponse>) {
  const trailers = call.metadata;
  const code = metadataText(trailers, 'shortlink-error-code');
  if ((error === undefined) !== (code === undefined)) {
    throw new Error(`status ${call.code} (${call.details}) with shortlink-error-code ${code}`);
  }
  const limit = metadataText(trailers, 'x-ratelimit-limit');
  const rateLimit =
    limit === undefined
      ? undefined
      : {
          limit: Number(limit),
          remaining: Number(metadataText(trailers, 'x-ratelimit-remaining')),
        };
  if (rateLimit) {
    const fields = Object.entries(trailers.getMap()).map(([name, value]) => [name, String(value)]);
    expectRateLimitHeaders(Object.fromEntries(fields) as Record<string, string>, rateLimit);
  }
  const link = response?.shortLink;
  const outcome: KeyedOutcome = {
    status: call.code,
    reason: code === undefined ? undefined : reasonOf(Number(code) as ErrorCodeNumber),
    messages: error === undefined ? [] : [error.details],
    link: link && {
      id: link.id,
      shortUrl: link.shortUrl,
      url: link.url,
      domain: link.domain,
      alias: link.alias,
      redirectType: link.redirectType,
    },
    replayed: replayedFlag(metadataText(trailers, 'idempotent-replayed')),
    retryAfter: metadataText(trailers, 'retry-after'),
    rateLimit,
    answer: error === undefined ? response : { code: error.code, details: error.details },
  };
  return outcome;
}

/** CreateShortLink with the `idempotency-key` metadata. */
const grpcTransport: KeyedCreateTransport = {
  name: 'CreateShortLink with idempotency-key metadata',
  start: async (deps) => {
    const { f, grpc } = await startGrpcOnTestCore(deps);
    return {
      f,
      create: async (key, request = {}, token = f.token) =>
        grpcOutcome(await grpc.create(validRequest(f, request), keyed(key, token))),
      close: () => grpc.close(),
    };
  },
  statuses: {
    OK: status.OK,
    ALIAS_TAKEN: status.ALREADY_EXISTS,
    IDEMPOTENCY_KEY_REUSED: status.INVALID_ARGUMENT,
    IDEMPOTENCY_KEY_IN_USE: status.ABORTED,
    IDEMPOTENCY_KEY_INVALID: status.INVALID_ARGUMENT,
    BACKEND_UNAVAILABLE: status.UNAVAILABLE,
    ORGANIZATION_INACTIVE: status.UNAUTHENTICATED,
    NOT_A_MEMBER: status.PERMISSION_DENIED,
  },
  // grpc-js clients refuse control and non-ASCII characters in metadata; see the raw HTTP/2 test.
  malformedKeys: MALFORMED_KEYS.filter((bad) => /^[ -~]*$/.test(bad.key)),
};

describeKeyedCreateScenarios(grpcTransport);

it('expects of each reason the status of the gateway’s one mapping', () => {
  const { OK, ...byReason } = grpcTransport.statuses;
  expect(OK).toBe(status.OK);
  expect(GRPC_STATUS_BY_REASON).toMatchObject(byReason);
});

let f: CoreFixture;
let grpc: GrpcFixture;

async function start() {
  ({ f, grpc } = await startGrpcOnTestCore());
}

const create = (key: string, overrides = {}, token = f.token) =>
  grpc.create(validRequest(f, overrides), keyed(key, token));

const shortlinkCode = (outcome: { status: { metadata: Metadata } }) =>
  metadataText(outcome.status.metadata, 'shortlink-error-code');
const replayed = (outcome: { status: { metadata: Metadata } }) =>
  metadataText(outcome.status.metadata, 'idempotent-replayed');

describe('CreateShortLink with idempotency-key metadata: what only gRPC has', () => {
  afterEach(() => grpc.close());

  it('treats redirect_type 0 (proto3 default) as the default redirect, as REST’s absent field', async () => {
    await start();
    const first = await create('d-1', { redirectType: 0 });
    const second = await create('d-1', { redirectType: 301 });
    expect(second.response).toEqual(first.response);
    expect(replayed(second)).toBe('true');
  });

  describe('one key across REST and gRPC', () => {
    let http: HttpFixture;
    afterEach(() => http.close());

    it('replays over gRPC what REST created, and over REST what gRPC created', async () => {
      await start();
      http = await startHttp(f.core);
      const rest = await http.create(f.body({ url: 'https://example.com/both' }), f.token, {
        'Idempotency-Key': 'cross-1',
      });
      expect(rest.status).toBe(200);
      const restLink = (rest.json() as { data: { id: number; alias: string } }).data;
      const overGrpc = await create('cross-1', { url: 'https://example.com/both' });
      expect(overGrpc.response?.shortLink).toMatchObject({
        id: restLink.id,
        alias: restLink.alias,
      });
      expect(replayed(overGrpc)).toBe('true');

      const grpcFirst = await create('cross-2', { alias: 'both-ways' });
      const overRest = await http.create(f.body({ alias: 'both-ways' }), f.token, {
        'Idempotency-Key': 'cross-2',
      });
      expect(overRest.status).toBe(200);
      expect(overRest.headers['idempotent-replayed']).toBe('true');
      expect((overRest.json() as { data: { id: number } }).data.id).toBe(
        grpcFirst.response?.shortLink?.id,
      );
      // A REST body that means something else under the gRPC key: 25.
      const other = await http.create(f.body({ alias: 'other' }), f.token, {
        'Idempotency-Key': 'cross-2',
      });
      expect([other.status, (other.json() as { code: number }).code]).toEqual([
        422,
        ErrorCode.IDEMPOTENCY_KEY_REUSED,
      ]);
      expect(f.linkCount()).toBe(2);
    });
  });

  describe('a key with spaces around it, as grpc-js clients send it', () => {
    let http: HttpFixture;
    afterEach(() => http.close());

    it('is the key without them, as over REST: the create runs once and is replayed', async () => {
      await start();
      http = await startHttp(f.core);
      const first = await create('spaced-1 ', { url: 'https://example.com/spaced' });
      expect(first.error).toBeUndefined();
      expect(replayed(first)).toBeUndefined();
      const again = await create('spaced-1 ', { url: 'https://example.com/spaced' });
      expect(again.response).toEqual(first.response);
      expect(replayed(again)).toBe('true');
      const around = await create('  spaced-1  ', { url: 'https://example.com/spaced' });
      expect([around.response, replayed(around)]).toEqual([first.response, 'true']);
      const bare = await create('spaced-1', { url: 'https://example.com/spaced' });
      expect([bare.response, replayed(bare)]).toEqual([first.response, 'true']);
      const overRest = await http.create(f.body({ url: 'https://example.com/spaced' }), f.token, {
        'Idempotency-Key': 'spaced-1 ',
      });
      expect(overRest.headers['idempotent-replayed']).toBe('true');
      expect((overRest.json() as { data: { id: number } }).data.id).toBe(
        first.response?.shortLink?.id,
      );
      // Another request under the trimmed key is 25, never a second link.
      const other = await create('spaced-1 ', { url: 'https://example.com/other' });
      expect([other.error?.code, shortlinkCode(other)]).toEqual([
        status.INVALID_ARGUMENT,
        String(ErrorCode.IDEMPOTENCY_KEY_REUSED),
      ]);
      expect(f.linkCount()).toBe(1);
    });

    it('refuses a key of spaces only, or with a space inside, with 27 (never runs without it)', async () => {
      await start();
      const blank = await create('   ');
      expect([blank.error?.code, shortlinkCode(blank)]).toEqual([
        status.INVALID_ARGUMENT,
        String(ErrorCode.IDEMPOTENCY_KEY_INVALID),
      ]);
      expect(blank.error?.details).toMatch(/must not be empty/);
      const inside = await create(' two words ');
      expect([inside.error?.code, shortlinkCode(inside)]).toEqual([
        status.INVALID_ARGUMENT,
        String(ErrorCode.IDEMPOTENCY_KEY_INVALID),
      ]);
      expect(inside.error?.details).toMatch(/visible ASCII/);
      expect(f.linkCount()).toBe(0);
    });
  });
});
