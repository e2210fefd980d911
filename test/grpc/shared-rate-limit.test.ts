import { status } from '@grpc/grpc-js';
import { createMemoryRateLimiter, ErrorCode } from '../../core';
import type { Service } from '../../gateway-http/service';
import { createTestCore } from '../support/core-fixture';
import { startServiceWithGrpcClient } from '../support/in-process-service';
import { startHttp } from '../support/http-fixture';
import { conformingFetch } from '../support/openapi-conformance';
import { decodeStatusDetails } from './error-details';
import { metadataText, startGrpc, type GrpcClientFixture } from '../support/grpc-fixture';

describe('one token, one budget across REST and gRPC (npm start: startService)', () => {
  let service: Service;
  let grpc: GrpcClientFixture;
  let stop: () => Promise<void>;

  beforeAll(async () => ({ service, grpc, stop } = await startServiceWithGrpcClient()));
  afterAll(() => stop());

  it('serves 30 creates over REST and 30 over gRPC, then refuses the next on both', async () => {
    const demo = service.demo!;
    const base = `http://127.0.0.1:${service.http.port}`;
    const restCreate = () =>
      conformingFetch(`${base}/api/create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${demo.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          organization_key: demo.organizationKey,
          url_group_id: demo.urlGroupId,
          url: 'https://example.com/rest',
        }),
      });
    const grpcCreate = () =>
      grpc.create(
        {
          organizationKey: demo.organizationKey,
          urlGroupId: demo.urlGroupId,
          url: 'https://example.com/grpc',
        },
        demo.token,
      );

    for (let i = 0; i < 30; i += 1) {
      const answer = await restCreate();
      expect(answer.status).toBe(200);
    }
    const remaining: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      const outcome = await grpcCreate();
      expect(outcome.error).toBeUndefined();
      remaining.push(Number(metadataText(outcome.status.metadata, 'x-ratelimit-remaining')));
    }
    // The gRPC calls continue the count REST started.
    expect(remaining[0]).toBe(29);
    expect(remaining[29]).toBe(0);

    const refused = await grpcCreate();
    expect(refused.error?.code).toBe(status.RESOURCE_EXHAUSTED);
    const trailers = refused.status.metadata;
    expect(metadataText(trailers, 'shortlink-error-code')).toBe(String(ErrorCode.RATE_LIMITED));
    expect(metadataText(trailers, 'x-ratelimit-limit')).toBe('60');
    expect(metadataText(trailers, 'x-ratelimit-remaining')).toBe('0');
    const retryAfter = Number(metadataText(trailers, 'retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(decodeStatusDetails(trailers).errorInfo).toEqual({
      reason: 'RATE_LIMITED',
      domain: 'shortlink',
      metadata: { code: String(ErrorCode.RATE_LIMITED) },
    });

    const restRefused = await restCreate();
    expect(restRefused.status).toBe(429);
    expect(JSON.parse(restRefused.text)).toMatchObject({
      data: null,
      code: ErrorCode.RATE_LIMITED,
    });
    expect(restRefused.headers.get('retry-after')).not.toBeNull();
  });
});

describe('failed token checks are limited per client address across REST and gRPC', () => {
  it('counts gRPC failures by the peer address REST sees too', async () => {
    const f = await createTestCore({
      authFailureLimiter: createMemoryRateLimiter({ limit: 2, keyPrefix: 'authfail-grpc-test' }),
    });
    const http = await startHttp(f.core);
    const grpc = await startGrpc(f.core);
    try {
      const body = f.body();
      expect((await http.create(body, 'wrong-token-1')).status).toBe(401);
      const second = await grpc.create({ organizationKey: f.organizationKey }, 'wrong-token-2');
      expect(second.error?.code).toBe(status.UNAUTHENTICATED);

      // The budget of 127.0.0.1 is spent: gRPC (on any connection) and REST are refused.
      const third = await grpc.create({ organizationKey: f.organizationKey }, 'wrong-token-3');
      expect(third.error?.code).toBe(status.RESOURCE_EXHAUSTED);
      expect(metadataText(third.status.metadata, 'shortlink-error-code')).toBe(
        String(ErrorCode.RATE_LIMITED),
      );
      expect(Number(metadataText(third.status.metadata, 'retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await http.create(body, 'wrong-token-4')).status).toBe(429);
    } finally {
      await grpc.close();
      await http.close();
    }
  });
});
