import { Metadata, status } from '@grpc/grpc-js';
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { createMemoryRateLimiter, ErrorCode } from '../../core';
import {
  GetShortLinkRequest,
  LinkState,
  type ShortLink,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import type { CallOutcome } from '../support/grpc-call';
import type { CoreFixture } from '../support/core-fixture';
import { expectFailure } from './error-details';
import {
  metadataText,
  startGrpcOnTestCore,
  validRequest,
  type GrpcFixture,
} from '../support/grpc-fixture';
import { rawCall } from './raw-call';

let f: CoreFixture;
let grpc: GrpcFixture;
/** An active link of acme, group "1", and one of beta. */
let ours: ShortLink;
let theirs: ShortLink;

beforeAll(async () => {
  ({ f, grpc } = await startGrpcOnTestCore({
    rateLimiter: createMemoryRateLimiter({ limit: 1000, keyPrefix: 'grpc-governance-errors' }),
  }));
  ours = (await grpc.create(validRequest(f, { alias: 'ours' }), f.token)).response!.shortLink!;
  theirs = (
    await grpc.create(
      validRequest(f, { organizationKey: f.otherOrganizationKey, alias: 'theirs' }),
      f.token,
    )
  ).response!.shortLink!;
});
afterAll(() => grpc.close());

type Rpc = 'get' | 'list' | 'disable' | 'enable';

/** The core's one message (it holds `; `) for a page token the listing did not give. */
const PAGE_TOKEN_REFUSED = 'page_token was not given by this listing: start again without one.';

/** Calls `rpc` with `request` (acme's key unless it says otherwise) and `auth` (alice's token). */
function call(
  rpc: Rpc,
  request: Record<string, unknown>,
  auth: string | Metadata = f.token,
): Promise<CallOutcome<unknown>> {
  const withKey = { organizationKey: f.organizationKey, ...request };
  switch (rpc) {
    case 'get':
      return grpc.get(withKey, auth);
    case 'list':
      return grpc.list(withKey, auth);
    case 'disable':
      return grpc.disable({ reason: 'a reason', ...withKey }, auth);
    case 'enable':
      return grpc.enable(withKey, auth);
  }
}

/** A valid request of each RPC naming `ours`. */
const VALID: Array<[Rpc, () => Record<string, unknown>]> = [
  ['get', () => ({ id: ours.id })],
  ['list', () => ({})],
  ['disable', () => ({ id: ours.id })],
  ['enable', () => ({ id: ours.id })],
];

async function stateOf(link: ShortLink, organizationKey: string): Promise<LinkState> {
  const { response } = await grpc.get({ organizationKey, id: link.id }, f.token);
  return response!.shortLink!.state;
}

describe('the create stages, on every reading and governing RPC', () => {
  it.each(VALID)(
    '%s: UNAUTHENTICATED (3) without a token, with no rate-limit trailers',
    async (rpc, request) => {
      const outcome = await call(rpc, request(), new Metadata());
      expectFailure(outcome, 'TOKEN_MISSING', status.UNAUTHENTICATED);
      expect(metadataText(outcome.status.metadata, 'x-ratelimit-limit')).toBeUndefined();
      expect(await stateOf(ours, f.organizationKey)).toBe(LinkState.LINK_STATE_ACTIVE);
    },
  );

  it.each(VALID)('%s: UNAUTHENTICATED (11) for an unknown token', async (rpc, request) => {
    expectFailure(
      await call(rpc, request(), 'not-a-real-token'),
      'TOKEN_UNKNOWN',
      status.UNAUTHENTICATED,
    );
  });

  it.each(VALID)(
    '%s: PERMISSION_DENIED (17) for a token whose user is not a member',
    async (rpc, request) => {
      const outcome = await call(rpc, request(), f.outsiderToken);
      expectFailure(outcome, 'NOT_A_MEMBER', status.PERMISSION_DENIED);
      // Past the token check: counted, and said so.
      expect(metadataText(outcome.status.metadata, 'x-ratelimit-limit')).toBe('1000');
      expect(await stateOf(ours, f.organizationKey)).toBe(LinkState.LINK_STATE_ACTIVE);
    },
  );

  it.each(VALID)('%s: the organization key (4, 12, 13)', async (rpc, request) => {
    expectFailure(
      await call(rpc, { ...request(), organizationKey: '' }),
      'ORGANIZATION_KEY_MISSING',
      status.INVALID_ARGUMENT,
    );
    expectFailure(
      await call(rpc, { ...request(), organizationKey: 'no-such-key' }),
      'ORGANIZATION_KEY_INVALID',
      status.UNAUTHENTICATED,
    );
    expectFailure(
      await call(rpc, { ...request(), organizationKey: f.inactiveOrganizationKey }),
      'ORGANIZATION_INACTIVE',
      status.UNAUTHENTICATED,
    );
  });
});

describe('links of another organization', () => {
  it.each(['get', 'disable', 'enable'] as const)(
    '%s: NOT_FOUND (24) for another organization\u2019s link, as for one that does not exist',
    async (rpc) => {
      expectFailure(await call(rpc, { id: theirs.id }), 'NOT_FOUND', status.NOT_FOUND);
      expectFailure(await call(rpc, { alias: 'theirs' }), 'NOT_FOUND', status.NOT_FOUND);
      expectFailure(await call(rpc, { id: 999_999 }), 'NOT_FOUND', status.NOT_FOUND);
      expect(await stateOf(theirs, f.otherOrganizationKey)).toBe(LinkState.LINK_STATE_ACTIVE);
    },
  );

  it('an alias no link could have names none: NOT_FOUND (24)', async () => {
    expectFailure(await call('get', { alias: 'not an alias!' }), 'NOT_FOUND', status.NOT_FOUND);
  });
});

describe('malformed arguments: INVALID_ARGUMENT (29), nothing changed', () => {
  it.each([
    ['get', { alias: 'ours', id: 1 }, 1],
    ['get', {}, 1],
    ['get', { id: -1 }, 1],
    ['enable', { alias: 'ours', id: 1 }, 1],
    ['disable', { id: -5, reason: '' }, 2],
    ['list', { pageSize: 101 }, 1],
    ['list', { pageSize: -1 }, 1],
    ['list', { pageToken: 'not-a-token' }, { details: PAGE_TOKEN_REFUSED }],
  ] as Array<[Rpc, Record<string, unknown>, number | { details: string }]>)(
    '%s %j',
    async (rpc, request, messageCount) => {
      const outcome = await call(rpc, request);
      expectFailure(outcome, 'ARGUMENT_INVALID', status.INVALID_ARGUMENT, messageCount);
      expect(metadataText(outcome.status.metadata, 'x-ratelimit-limit')).toBe('1000');
    },
  );

  it.each([
    ['empty', ''],
    ['only whitespace', ' \t '],
    ['longer than 500 characters', 'x'.repeat(501)],
  ])('disable with a reason %s', async (_name, reason) => {
    const outcome = await call('disable', { id: ours.id, reason });
    const [message] = expectFailure(outcome, 'ARGUMENT_INVALID', status.INVALID_ARGUMENT);
    expect(message).toMatch(/reason/);
    expect(await stateOf(ours, f.organizationKey)).toBe(LinkState.LINK_STATE_ACTIVE);
  });

  it('accepts a reason of exactly 500 characters once trimmed', async () => {
    const link = (await grpc.create(validRequest(f), f.token)).response!.shortLink!;
    const reason = 'y'.repeat(500);
    const { response, error } = await grpc.disable(
      { organizationKey: f.organizationKey, id: link.id, reason: `  ${reason}  ` },
      f.token,
    );
    expect(error).toBeUndefined();
    expect(response!.shortLink!.disabledReason).toBe(reason);
  });

  it('refuses a page token of another listing', async () => {
    await grpc.create(validRequest(f, { urlGroupId: '42' }), f.token);
    await grpc.create(validRequest(f, { urlGroupId: '42' }), f.token);
    const first = await grpc.list(
      { organizationKey: f.organizationKey, urlGroupId: '42', pageSize: 1 },
      f.token,
    );
    const token = first.response!.nextPageToken;
    expect(token).not.toBe('');
    expectFailure(
      await call('list', { pageSize: 1, pageToken: token }),
      'ARGUMENT_INVALID',
      status.INVALID_ARGUMENT,
      { details: PAGE_TOKEN_REFUSED },
    );
  });

  it('list: NOT_FOUND (14) for a URL group the organization does not have', async () => {
    expectFailure(
      await call('list', { urlGroupId: '999' }),
      'URL_GROUP_NOT_FOUND',
      status.NOT_FOUND,
    );
  });
});

describe('request bytes', () => {
  const GET = '/shortlink.v1.ShortLinkService/GetShortLink';

  it('a message that does not decode is INVALID_ARGUMENT (20), after the token', async () => {
    const broken = Buffer.from([0x0a, 0x05, 0x61]); // a string field cut short
    const withToken = await rawCall(grpc.running.port, GET, broken, {
      authorization: `Bearer ${f.token}`,
    });
    expect(withToken).toMatchObject({
      grpcStatus: status.INVALID_ARGUMENT,
      shortlinkCode: String(ErrorCode.BODY_INVALID),
    });
    const withoutToken = await rawCall(grpc.running.port, GET, broken, {});
    expect(withoutToken).toMatchObject({
      grpcStatus: status.UNAUTHENTICATED,
      shortlinkCode: String(ErrorCode.TOKEN_MISSING),
    });
  });

  it('an id beyond 2^53 - 1 is INVALID_ARGUMENT (20) with a message saying so', async () => {
    const message = new BinaryWriter()
      .uint32((1 << 3) | 2)
      .string(f.organizationKey)
      .uint32(2 << 3)
      .int64(2n ** 60n)
      .finish();
    const outcome = await rawCall(grpc.running.port, GET, message, {
      authorization: `Bearer ${f.token}`,
    });
    expect(outcome).toMatchObject({
      grpcStatus: status.INVALID_ARGUMENT,
      shortlinkCode: String(ErrorCode.BODY_INVALID),
      message: `An integer field of the request message is beyond ±${Number.MAX_SAFE_INTEGER}, which the server cannot read.`,
    });
    // The largest id a client can give is read, and names no link.
    const largest = GetShortLinkRequest.encode({
      organizationKey: f.organizationKey,
      id: Number.MAX_SAFE_INTEGER,
      alias: '',
    }).finish();
    const read = await rawCall(grpc.running.port, GET, largest, {
      authorization: `Bearer ${f.token}`,
    });
    expect(read).toMatchObject({
      grpcStatus: status.NOT_FOUND,
      shortlinkCode: String(ErrorCode.NOT_FOUND),
    });
  });
});

describe('the rate limit, one budget with creates', () => {
  it('counts every call past the token check, and refuses past the budget (19)', async () => {
    const limited = await startGrpcOnTestCore({
      rateLimiter: createMemoryRateLimiter({ limit: 6, keyPrefix: 'grpc-governance-limit' }),
    });
    const { f: lf, grpc: lg } = limited;
    try {
      const key = { organizationKey: lf.organizationKey };
      const remaining = (outcome: CallOutcome<unknown>) =>
        metadataText(outcome.status.metadata, 'x-ratelimit-remaining');
      const created = await lg.create(validRequest(lf), lf.token);
      const id = created.response!.shortLink!.id;
      // [x-ratelimit-remaining, shortlink-error-code] of each answer.
      const answers: Array<[string | undefined, string | undefined]> = [];
      const record = (outcome: CallOutcome<unknown>) =>
        answers.push([
          remaining(outcome),
          metadataText(outcome.status.metadata, 'shortlink-error-code'),
        ]);
      record(created);
      record(await lg.get({ ...key, id }, lf.token));
      record(await lg.list({ ...key, pageSize: 500 }, lf.token)); // a failure counts too
      record(await lg.disable({ ...key, id, reason: 'limit' }, lf.token));
      record(await lg.enable({ ...key, id }, lf.token));
      record(await lg.create(validRequest(lf), lf.token));
      expect(answers).toEqual([
        ['5', undefined],
        ['4', undefined],
        ['3', '29'],
        ['2', undefined],
        ['1', undefined],
        ['0', undefined],
      ]);

      const refused = await lg.get({ ...key, id }, lf.token);
      expectFailure(refused, 'RATE_LIMITED', status.RESOURCE_EXHAUSTED, {
        details: expect.stringMatching(
          /^Rate limit of 6 requests per minute exceeded; retry in \d+ s\.$/,
        ) as string,
      });
      expect(Number(metadataText(refused.status.metadata, 'retry-after'))).toBeGreaterThan(0);
      expect(remaining(refused)).toBe('0');
      // A call refused by the limit changes nothing.
      const disable = await lg.disable({ ...key, id, reason: 'too late' }, lf.token);
      expect(metadataText(disable.status.metadata, 'shortlink-error-code')).toBe(
        String(ErrorCode.RATE_LIMITED),
      );
      expect((await lf.store.links.findById(id))?.disabled).toBeUndefined();
    } finally {
      await lg.close();
    }
  });
});
