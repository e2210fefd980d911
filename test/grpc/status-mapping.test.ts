import { Metadata, status } from '@grpc/grpc-js';
import {
  BackendUnavailableError,
  createCore,
  createMemoryStore,
  ErrorCode,
  type UrlGuard,
} from '../../core';
import { createTestCore, type CoreFixture } from '../support/core-fixture';
import { failingStore } from '../support/failures';
import { expectFailure } from './error-details';
import {
  metadataText,
  startGrpc,
  startGrpcOnTestCore,
  validRequest,
  type GrpcFixture,
} from '../support/grpc-fixture';

// The table itself (GRPC_STATUS_BY_REASON) is checked against the documented one, code by code,
// in test/docs/error-tables.test.ts; here every failure is provoked through a real server.

describe('gRPC errors through a real server', () => {
  let f: CoreFixture;
  let grpc: GrpcFixture;
  const blockingGuard: UrlGuard = {
    check: (url) =>
      Promise.resolve(
        url.hostname === 'evil.example'
          ? { blocked: true, reason: 'the host is on the blocklist' }
          : { blocked: false },
      ),
  };

  beforeAll(async () => ({ f, grpc } = await startGrpcOnTestCore({ urlGuard: blockingGuard })));
  afterAll(() => grpc.close());

  const withAuthorization = (value: string) => {
    const metadata = new Metadata();
    metadata.set('authorization', value);
    return metadata;
  };

  it.each([
    ['3: no authorization metadata', undefined, 'TOKEN_MISSING'],
    ['10: not a Bearer token', withAuthorization('Basic dXNlcjpwYXNz'), 'TOKEN_MALFORMED'],
    // (HTTP/2 drops a value with surrounding spaces, so "Bearer " arrives as no metadata.)
    ['10: "Bearer" with no token', withAuthorization('Bearer'), 'TOKEN_MALFORMED'],
    ['10: an empty value', withAuthorization(''), 'TOKEN_MALFORMED'],
    ['11: an unknown token', 'not-a-real-token', 'TOKEN_UNKNOWN'],
  ] as const)('UNAUTHENTICATED for the token stage, code %s', async (_name, auth, reason) => {
    const before = f.linkCount();
    const outcome = await grpc.create(validRequest(f), auth);
    expectFailure(outcome, reason, status.UNAUTHENTICATED);
    // No rate-limit figures before the token check passed.
    expect(metadataText(outcome.status.metadata, 'x-ratelimit-limit')).toBeUndefined();
    expect(f.linkCount()).toBe(before);
  });

  it.each([
    [
      '12: an unknown organization key',
      { organizationKey: 'no-such-key' },
      'ORGANIZATION_KEY_INVALID',
      status.UNAUTHENTICATED,
    ],
    [
      '4: an empty organization key',
      { organizationKey: '' },
      'ORGANIZATION_KEY_MISSING',
      status.INVALID_ARGUMENT,
    ],
    [
      '5: an empty url_group_id',
      { urlGroupId: '' },
      'URL_GROUP_ID_MISSING',
      status.INVALID_ARGUMENT,
    ],
    ['14: an unknown url group', { urlGroupId: '999' }, 'URL_GROUP_NOT_FOUND', status.NOT_FOUND],
    ['6: an empty url', { url: '' }, 'URL_MISSING', status.INVALID_ARGUMENT],
    ['6: a url of spaces', { url: '   ' }, 'URL_MISSING', status.INVALID_ARGUMENT],
    [
      '7: not an http(s) url',
      { url: 'ftp://example.com/file' },
      'URL_INVALID',
      status.INVALID_ARGUMENT,
    ],
    [
      '8: an alias with other characters',
      { alias: 'no spaces!' },
      'ALIAS_INVALID',
      status.INVALID_ARGUMENT,
    ],
    [
      '9: an alias of 65 characters',
      { alias: 'a'.repeat(65) },
      'ALIAS_TOO_LONG',
      status.INVALID_ARGUMENT,
    ],
    [
      '16: a redirect type that is not allowed',
      { redirectType: 200 },
      'REDIRECT_TYPE_INVALID',
      status.INVALID_ARGUMENT,
    ],
    [
      '16: a negative redirect type',
      { redirectType: -301 },
      'REDIRECT_TYPE_INVALID',
      status.INVALID_ARGUMENT,
    ],
    ['15: a reserved alias', { alias: 'API' }, 'ALIAS_TAKEN', status.ALREADY_EXISTS],
    [
      '15: the reserved alias of the reference page',
      { alias: 'Docs' },
      'ALIAS_TAKEN',
      status.ALREADY_EXISTS,
    ],
    [
      '18: a blocked URL',
      { url: 'https://evil.example/login' },
      'URL_BLOCKED',
      status.FAILED_PRECONDITION,
    ],
  ] as const)('code %s', async (_name, overrides, reason, grpcStatus) => {
    const before = f.linkCount();
    const outcome = await grpc.create(validRequest(f, overrides), f.token);
    expectFailure(outcome, reason, grpcStatus);
    // Past the token check, every answer carries the rate-limit figures.
    expect(metadataText(outcome.status.metadata, 'x-ratelimit-limit')).toBe('60');
    expect(f.linkCount()).toBe(before);
  });

  it('code 13: UNAUTHENTICATED for an inactive organization', async () => {
    const outcome = await grpc.create(
      validRequest(f, { organizationKey: f.inactiveOrganizationKey }),
      f.token,
    );
    expectFailure(outcome, 'ORGANIZATION_INACTIVE', status.UNAUTHENTICATED);
  });

  it('code 17: PERMISSION_DENIED for a token whose user is not a member', async () => {
    const outcome = await grpc.create(validRequest(f), f.outsiderToken);
    expectFailure(outcome, 'NOT_A_MEMBER', status.PERMISSION_DENIED);
  });

  it('code 15: ALREADY_EXISTS for an alias taken on this link domain', async () => {
    const first = await grpc.create(validRequest(f, { alias: 'taken-once' }), f.token);
    expect(first.error).toBeUndefined();
    const before = f.linkCount();
    const second = await grpc.create(
      validRequest(f, { alias: 'taken-once', url: 'https://other.example/' }),
      f.token,
    );
    expectFailure(second, 'ALIAS_TAKEN', status.ALREADY_EXISTS);
    expect(f.linkCount()).toBe(before);
  });

  it('reports every failing field, with the code of the first (7), in details and Status.message', async () => {
    const outcome = await grpc.create(
      validRequest(f, { url: 'not a url', alias: 'bad alias', redirectType: 999 }),
      f.token,
    );
    const messages = expectFailure(outcome, 'URL_INVALID', status.INVALID_ARGUMENT, 3);
    expect(messages[0]).toMatch(/url/);
    expect(messages[1]).toMatch(/alias/);
    expect(messages[2]).toMatch(/redirect_type/);
  });

  it('reads proto3 defaults as absent: empty alias generates one, redirect_type 0 is 301', async () => {
    const { response, error } = await grpc.create(
      validRequest(f, { alias: '', redirectType: 0 }),
      f.token,
    );
    expect(error).toBeUndefined();
    expect(response!.shortLink!.alias).toMatch(/^[0-9A-Za-z]{7}$/);
    expect(response!.shortLink!.redirectType).toBe(301);
  });

  it('code 24: NOT_FOUND when resolving an unknown alias', async () => {
    expectFailure(
      await grpc.resolve({ domain: f.domain, alias: 'missing' }),
      'NOT_FOUND',
      status.NOT_FOUND,
    );
  });
});

describe('gRPC errors from failing backends', () => {
  it.each([
    [
      '1: INTERNAL for an unexpected store error, without leaking it',
      () => new Error('disk on fire at /var/db'),
      'INTERNAL',
      status.INTERNAL,
    ],
    [
      '23: UNAVAILABLE when the store is unreachable',
      () => new BackendUnavailableError('connection refused to db:27017'),
      'BACKEND_UNAVAILABLE',
      status.UNAVAILABLE,
    ],
  ] as const)('code %s', async (_name, makeError, reason, grpcStatus) => {
    const base = createMemoryStore();
    const f = await createTestCore({ store: base });
    // Identities work (the token and organization checks pass); the link store fails.
    const store = failingStore(base, makeError, { parts: ['links'] });
    const core = createCore({ ...f.core.deps, store });
    const grpc = await startGrpc(core);
    try {
      const outcome = await grpc.create(
        { organizationKey: f.organizationKey, urlGroupId: '1', url: 'https://example.com/' },
        f.token,
      );
      const [message] = expectFailure(outcome, reason, grpcStatus);
      expect(message).not.toMatch(/disk|var|27017|refused/);
    } finally {
      await grpc.close();
    }
  });
});

describe('gRPC transport limits', () => {
  it('refuses a request over 64 KiB before the core (RESOURCE_EXHAUSTED, no error code)', async () => {
    const { f, grpc } = await startGrpcOnTestCore();
    try {
      const before = f.linkCount();
      const huge = await grpc.create(
        validRequest(f, { url: `https://example.com/${'a'.repeat(70 * 1024)}` }),
        f.token,
      );
      expect(huge.error?.code).toBe(status.RESOURCE_EXHAUSTED);
      expect(metadataText(huge.status.metadata, 'shortlink-error-code')).toBeUndefined();
      expect(f.linkCount()).toBe(before);

      // Below the limit, the core judges: a URL over 2048 characters is code 7.
      const long = await grpc.create(
        {
          organizationKey: f.organizationKey,
          urlGroupId: '1',
          url: `https://example.com/${'a'.repeat(4096)}`,
        },
        f.token,
      );
      expect(long.error?.code).toBe(status.INVALID_ARGUMENT);
      expect(metadataText(long.status.metadata, 'shortlink-error-code')).toBe(
        String(ErrorCode.URL_INVALID),
      );
    } finally {
      await grpc.close();
    }
  });
});
