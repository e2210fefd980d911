import { createMemoryRateLimiter, ShortlinkMetrics, type RateLimiter } from '../../core';
import { CreateShortLinkRequest } from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { captureLogs } from '../support/log-capture';
import { gatedUrlGuard, waitUntil } from '../support/gated-url-guard';
import { startGrpcOnTestCore, validRequest } from '../support/grpc-fixture';
import { bearer } from '../support/grpc-metadata';

/** The value of `name` with exactly these labels, 0 when the series does not exist. */
async function sampleOf(metrics: ShortlinkMetrics, name: string, labels: Record<string, string>) {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  const matches = (sample: { labels: Record<string, unknown> }) =>
    Object.entries(labels).every(([key, value]) => sample.labels[key] === value);
  return (metric?.values ?? []).filter(matches).reduce((sum, sample) => sum + sample.value, 0);
}

/**
 * `shortlink_requests_total` and the request duration count only answers the client was sent
 * (gateway-http/README.md, Metrics), as REST does: a create whose client went away while the core
 * worked on it is not a request answered, though its link, made all the same, is counted created.
 */
describe('a gRPC create cancelled while the core works on it', () => {
  it('is not counted as answered; its link is counted as created', async () => {
    const gate = gatedUrlGuard();
    const logs = captureLogs();
    const metrics = new ShortlinkMetrics({ processMetrics: false });
    const { f, grpc } = await startGrpcOnTestCore(
      { urlGuard: gate.guard },
      { logger: logs.logger, metrics },
    );
    const messages = () => logs.records().map((record) => record.msg);
    const answered = () => sampleOf(metrics, 'shortlink_requests_total', { gateway: 'grpc' });
    const timed = () =>
      sampleOf(metrics, 'shortlink_request_duration_seconds_count', { gateway: 'grpc' });
    try {
      const before = f.linkCount();
      const call = grpc.client.createShortLink(
        CreateShortLinkRequest.fromPartial(validRequest(f)),
        bearer(f.token),
        () => undefined,
      );
      await gate.entered;
      call.cancel(); // the client goes away while the core works on its create
      await waitUntil(
        () => messages().includes('call cancelled by deadline or client'),
        'the server saw the call end',
      );
      gate.release();
      await waitUntil(() => messages().includes('call aborted'), 'the late answer was dropped');
      expect(f.linkCount()).toBe(before + 1);
      expect(await sampleOf(metrics, 'shortlink_links_created_total', { gateway: 'grpc' })).toBe(1);
      expect(await answered()).toBe(0);
      expect(await timed()).toBe(0);
    } finally {
      gate.release();
      await grpc.close();
    }
  }, 60000);
});

describe('a keyed gRPC replay cancelled while the core works on it', () => {
  it('is not counted as a replay', async () => {
    // The second call (the replay) is held at the rate-limit stage until released.
    const limiter = createMemoryRateLimiter({ limit: 1000, keyPrefix: 'replay-test' });
    let calls = 0;
    let release!: () => void;
    let markEntered!: () => void;
    const open = new Promise<void>((resolve) => (release = resolve));
    const entered = new Promise<void>((resolve) => (markEntered = resolve));
    const gated: RateLimiter = {
      limit: limiter.limit,
      windowSeconds: limiter.windowSeconds,
      peek: (key) => limiter.peek(key),
      consume: async (key) => {
        calls += 1;
        if (calls === 2) {
          markEntered();
          await open;
        }
        return limiter.consume(key);
      },
    };
    const logs = captureLogs();
    const metrics = new ShortlinkMetrics({ processMetrics: false });
    const { f, grpc } = await startGrpcOnTestCore(
      { rateLimiter: gated },
      { logger: logs.logger, metrics },
    );
    const replays = () =>
      sampleOf(metrics, 'shortlink_idempotent_replays_total', { gateway: 'grpc' });
    const keyed = () => {
      const metadata = bearer(f.token);
      metadata.set('idempotency-key', 'replay-cancelled-1');
      return metadata;
    };
    try {
      const request = CreateShortLinkRequest.fromPartial(validRequest(f));
      await new Promise<void>((resolve, reject) =>
        grpc.client.createShortLink(request, keyed(), (error) =>
          error ? reject(error) : resolve(),
        ),
      );
      // grpc-js also emits 'cancelled' when a completed call's stream closes: count from here.
      const cancelled = () =>
        logs.records().filter((record) => record.msg === 'call cancelled by deadline or client')
          .length;
      const call = grpc.client.createShortLink(request, keyed(), () => undefined);
      await entered;
      const before = cancelled();
      call.cancel(); // the client goes away before its replay is answered
      await waitUntil(() => cancelled() > before, 'the server saw the call end');
      release();
      await waitUntil(
        () => logs.records().some((record) => record.msg === 'call aborted'),
        'the late replay was dropped',
      );
      expect(await replays()).toBe(0);
      expect(f.linkCount()).toBe(1);
    } finally {
      release();
      await grpc.close();
    }
  }, 60000);
});
