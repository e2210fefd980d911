import { credentials, status } from '@grpc/grpc-js';
import type { HealthCheckResponse } from '../../gateway-grpc/generated/grpc/health/v1/health';
import {
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthClient,
} from '../../gateway-grpc/generated/grpc/health/v1/health';
import { captureLogs } from '../support/log-capture';
import { gatedUrlGuard, waitUntil } from '../support/gated-url-guard';
import { startGrpcOnTestCore, validRequest } from '../support/grpc-fixture';

describe('gRPC deadlines', () => {
  it('fails a call whose deadline already passed without reaching the server', async () => {
    const { f, grpc } = await startGrpcOnTestCore();
    try {
      const before = f.linkCount();
      const outcome = await grpc.create(validRequest(f), f.token, { deadline: Date.now() - 1 });
      expect(outcome.error?.code).toBe(status.DEADLINE_EXCEEDED);
      expect(f.linkCount()).toBe(before);
    } finally {
      await grpc.close();
    }
  });

  it('ends a call still in the core at its deadline with DEADLINE_EXCEEDED, and drops the late answer', async () => {
    const gate = gatedUrlGuard();
    const logs = captureLogs();
    const { f, grpc } = await startGrpcOnTestCore(
      { urlGuard: gate.guard },
      { logger: logs.logger },
    );
    const messages = () => logs.records().map((record) => record.msg);
    try {
      const request = validRequest(f, { url: 'https://example.com/slow' });
      // The gate never opens before the deadline, so this call can only end by its deadline
      // (long enough for a loaded machine to deliver the call to the server first).
      const outcome = await grpc.create(request, f.token, { deadline: Date.now() + 5000 });
      expect(outcome.error?.code).toBe(status.DEADLINE_EXCEEDED);
      await gate.entered;
      await waitUntil(
        () => messages().includes('call cancelled by deadline or client'),
        'the server saw the call end',
      );

      gate.release();
      await waitUntil(() => messages().includes('call aborted'), 'the late answer was dropped');
      expect(logs.records().filter((record) => Number(record.level) >= 50)).toEqual([]);

      // The server is unharmed: the next call (the gate is open now) succeeds.
      const next = await grpc.create(request, f.token);
      expect(next.error).toBeUndefined();
      expect(next.response!.shortLink!.url).toBe('https://example.com/slow');
    } finally {
      gate.release();
      await grpc.close();
    }
  }, 60000);
});

describe('gRPC graceful shutdown', () => {
  it('lets an in-flight call finish, then stops taking calls', async () => {
    const gate = gatedUrlGuard();
    const { f, grpc } = await startGrpcOnTestCore(
      { urlGuard: gate.guard },
      { shutdownTimeoutMs: 60000 },
    );
    const inFlight = grpc.create(validRequest(f), f.token);
    await gate.entered;

    const closed = grpc.running.close();
    gate.release();
    const outcome = await inFlight;
    expect(outcome.error).toBeUndefined();
    expect(outcome.response!.shortLink!.alias).toMatch(/^[0-9A-Za-z]{7}$/);
    await closed;

    const after = await grpc.create(validRequest(f), f.token, { deadline: Date.now() + 10000 });
    expect(after.error?.code).toBe(status.UNAVAILABLE);
    await grpc.close();
  });

  it('turns health NOT_SERVING, and cuts what still runs at the shutdown deadline', async () => {
    const { grpc } = await startGrpcOnTestCore({}, { shutdownTimeoutMs: 300 });
    const health = new HealthClient(grpc.address, credentials.createInsecure());
    const seen: ServingStatus[] = [];
    // A Watch stream never ends by itself: only the bounded fallback can stop the server.
    const watch = health.watch({ service: 'shortlink.v1.ShortLinkService' });
    const ended = new Promise<number>((resolve) => watch.on('status', (s) => resolve(s.code)));
    watch.on('error', () => undefined);
    watch.on('data', (response: HealthCheckResponse) => seen.push(response.status));
    await waitUntil(() => seen.length > 0, 'the first health status');
    expect(seen[0]).toBe(ServingStatus.SERVING);

    await grpc.running.close();
    expect(seen).toEqual([ServingStatus.SERVING, ServingStatus.NOT_SERVING]);
    expect(await ended).not.toBe(status.OK);
    health.close();
    await grpc.close();
  });
});
