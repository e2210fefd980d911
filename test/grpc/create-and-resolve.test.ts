import { ErrorCode } from '../../core';
import { status } from '@grpc/grpc-js';
import { createTestCore, type CoreFixture } from '../support/core-fixture';
import { captureLogs, type CapturedLogs } from '../support/log-capture';
import {
  LinkState,
  type CreateShortLinkRequest,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { metadataText, startGrpc, validRequest, type GrpcFixture } from '../support/grpc-fixture';

describe('gRPC: CreateShortLink and ResolveShortLink on the core', () => {
  let f: CoreFixture;
  let grpc: GrpcFixture;
  let logs: CapturedLogs;

  beforeAll(async () => {
    f = await createTestCore();
    logs = captureLogs();
    grpc = await startGrpc(f.core, { logger: logs.logger });
  });
  afterAll(() => grpc.close());

  /** A valid request whose URL has spaces around it (the link holds it trimmed). */
  const request = (overrides: Partial<CreateShortLinkRequest> = {}) =>
    validRequest(f, { url: '  https://example.com/some/long/path?q=1  ', ...overrides });

  it('creates a link with a generated alias and the default redirect, with rate-limit trailers', async () => {
    const before = f.linkCount();
    const { response, error, status: callStatus } = await grpc.create(request(), f.token);
    expect(error).toBeUndefined();
    expect(callStatus.code).toBe(status.OK);
    const link = response!.shortLink!;
    expect(link.alias).toMatch(/^[0-9A-Za-z]{7}$/);
    expect(link).toEqual({
      id: expect.any(Number),
      shortUrl: `https://${f.domain}/${link.alias}`,
      url: 'https://example.com/some/long/path?q=1',
      domain: f.domain,
      alias: link.alias,
      redirectType: 301,
      // A new link is active; the create's answer has no creation time or group.
      state: LinkState.LINK_STATE_ACTIVE,
      createdAt: undefined,
      urlGroupId: '',
      disabledReason: '',
      disabledAt: undefined,
      disabledBy: '',
    });
    expect(link.id).toBeGreaterThanOrEqual(1);
    expect(f.linkCount()).toBe(before + 1);

    const trailers = callStatus.metadata;
    expect(metadataText(trailers, 'x-ratelimit-limit')).toBe('60');
    expect(Number(metadataText(trailers, 'x-ratelimit-remaining'))).toBeLessThan(60);
    expect(Number(metadataText(trailers, 'x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(metadataText(trailers, 'ratelimit-policy')).toBe('"default";q=60;w=60');
    expect(metadataText(trailers, 'ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
    expect(metadataText(trailers, 'retry-after')).toBeUndefined();
    expect(metadataText(trailers, 'shortlink-error-code')).toBeUndefined();
  });

  it('creates a link with a chosen alias and redirect type, and resolves it without a token to its public fields', async () => {
    const created = await grpc.create(
      request({ alias: 'grpc-Chosen_1', redirectType: 307 }),
      f.token,
    );
    expect(created.error).toBeUndefined();
    expect(created.response!.shortLink).toMatchObject({
      alias: 'grpc-Chosen_1',
      redirectType: 307,
      shortUrl: `https://${f.domain}/grpc-Chosen_1`,
    });

    const resolved = await grpc.resolve({ domain: f.domain.toUpperCase(), alias: 'grpc-Chosen_1' });
    expect(resolved.error).toBeUndefined();
    // Without credentials, only what a follow shows (and what naming the link says already): no
    // id, group, state or creation time.
    expect(resolved.response!.shortLink).toEqual({
      id: 0,
      shortUrl: `https://${f.domain}/grpc-Chosen_1`,
      url: 'https://example.com/some/long/path?q=1',
      domain: f.domain,
      alias: 'grpc-Chosen_1',
      redirectType: 307,
      state: LinkState.LINK_STATE_UNSPECIFIED,
      createdAt: undefined,
      urlGroupId: '',
      disabledReason: '',
      disabledAt: undefined,
      disabledBy: '',
    });
  });

  it('gives ids that increase across calls', async () => {
    const first = await grpc.create(request(), f.token);
    const second = await grpc.create(request(), f.token);
    expect(second.response!.shortLink!.id).toBeGreaterThan(first.response!.shortLink!.id);
  });

  it('answers NOT_FOUND for an unknown alias or an empty request', async () => {
    for (const unknown of [
      { domain: f.domain, alias: 'no-such-alias' },
      { domain: 'unknown.example', alias: 'grpc-Chosen_1' },
      { domain: '', alias: '' },
    ]) {
      const { error } = await grpc.resolve(unknown);
      expect(error?.code).toBe(status.NOT_FOUND);
      expect(metadataText(error!.metadata, 'shortlink-error-code')).toBe(
        String(ErrorCode.NOT_FOUND),
      );
    }
  });

  it('logs each call without its secrets', () => {
    const completed = logs.records().filter((record) => record.msg === 'call completed');
    expect(completed.length).toBeGreaterThanOrEqual(4);
    expect(completed[0]).toMatchObject({ method: 'CreateShortLink', code: 0 });
    expect(completed.some((record) => record.code === status.NOT_FOUND)).toBe(true);
    expect(logs.text()).not.toContain(f.token);
    expect(logs.text()).not.toContain(f.organizationKey);
  });
});
