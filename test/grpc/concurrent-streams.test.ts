import { connect } from 'node:http2';
import { credentials, status } from '@grpc/grpc-js';
import { ShortLinkServiceClient } from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { MAX_CONCURRENT_STREAMS } from '../../gateway-grpc/grpc-server';
import { startGrpcOnTestCore, type GrpcFixture } from '../support/grpc-fixture';

let grpc: GrpcFixture;

beforeAll(async () => {
  // 300 unknown aliases from one address: no budget of misses here (this is about streams).
  ({ grpc } = await startGrpcOnTestCore({ followMissLimiter: null }));
});

afterAll(async () => {
  await grpc.close();
});

describe('gRPC connections', () => {
  it('announce a bound on the calls one connection may hold open, as HTTP/2 lets a server', async () => {
    // Unbounded (grpc-js's default, 2^32 - 1), one connection could open thousands of calls that
    // never send their message, each held in memory with no deadline.
    const session = connect(`http://127.0.0.1:${grpc.running.port}`);
    try {
      const settings = await new Promise<{ maxConcurrentStreams?: number }>((resolve, reject) => {
        session.once('remoteSettings', resolve);
        session.once('error', reject);
      });
      expect(settings.maxConcurrentStreams).toBe(MAX_CONCURRENT_STREAMS);
      expect(MAX_CONCURRENT_STREAMS).toBeGreaterThanOrEqual(100);
      expect(MAX_CONCURRENT_STREAMS).toBeLessThan(2 ** 16);
    } finally {
      session.destroy();
    }
  });

  it('queue, not refuse, the calls of a client with more in flight on one channel', async () => {
    const client = new ShortLinkServiceClient(
      `127.0.0.1:${grpc.running.port}`,
      credentials.createInsecure(),
    );
    try {
      const calls = 2 * MAX_CONCURRENT_STREAMS + 44;
      const codes = await Promise.all(
        Array.from(
          { length: calls },
          (_, i) =>
            new Promise<number>((resolve) => {
              client.resolveShortLink({ domain: 'acme.link', alias: `none-${i}` }, (error) =>
                resolve(error?.code ?? status.OK),
              );
            }),
        ),
      );
      expect(codes).toEqual(Array.from({ length: calls }, () => status.NOT_FOUND));
    } finally {
      client.close();
    }
  });
});
