import { GRPC_CONNECTION_DEFAULTS } from '../../gateway-grpc';
import { connectionLimitsOf, loadGrpcConfig } from '../../gateway-grpc/grpc-config';
import { startInProcessService } from '../support/in-process-service';
import { closesWithin, silentConnection, timeUntil } from './raw-session';

describe('the gRPC connection settings', () => {
  it('default to GRPC_CONNECTION_DEFAULTS', () => {
    expect(connectionLimitsOf(loadGrpcConfig({}))).toEqual(GRPC_CONNECTION_DEFAULTS);
  });

  it('read each GRPC_* variable', () => {
    const limits = connectionLimitsOf(
      loadGrpcConfig({
        GRPC_HANDSHAKE_TIMEOUT_MS: '1',
        GRPC_MESSAGE_TIMEOUT_MS: '2',
        GRPC_MAX_CONNECTION_IDLE_MS: '3',
        GRPC_MAX_CONNECTION_AGE_MS: '4',
        GRPC_MAX_CONNECTION_AGE_GRACE_MS: '5',
        GRPC_KEEPALIVE_MIN_TIME_MS: '6',
        GRPC_KEEPALIVE_PERMIT_WITHOUT_CALLS: 'true',
        GRPC_MAX_PING_STRIKES: '7',
        GRPC_MAX_CONNECTIONS_PER_ADDRESS: '8',
      }),
    );
    expect(limits).toEqual({
      handshakeTimeoutMs: 1,
      messageTimeoutMs: 2,
      maxConnectionIdleMs: 3,
      maxConnectionAgeMs: 4,
      maxConnectionAgeGraceMs: 5,
      keepaliveMinTimeMs: 6,
      keepalivePermitWithoutCalls: true,
      maxPingStrikes: 7,
      maxConnectionsPerAddress: 8,
    });
  });

  it.each([
    ['GRPC_HANDSHAKE_TIMEOUT_MS', '0'],
    ['GRPC_MESSAGE_TIMEOUT_MS', '0'],
    ['GRPC_MAX_CONNECTION_AGE_MS', String(2 ** 31)],
    ['GRPC_MAX_CONNECTIONS_PER_ADDRESS', '-1'],
    ['GRPC_KEEPALIVE_PERMIT_WITHOUT_CALLS', 'yes'],
    ['GRPC_MAX_PING_STRIKES', ''],
  ])('refuse %s=%j, naming it', (name, value) => {
    expect(() => loadGrpcConfig({ [name]: value })).toThrow(new RegExp(`${name}: `));
  });

  it('reach the server `npm start` runs', async () => {
    const service = await startInProcessService({
      GRPC_HANDSHAKE_TIMEOUT_MS: '300',
      GRPC_MAX_CONNECTIONS_PER_ADDRESS: '2',
    });
    try {
      const port = service.grpc.port;
      const [first, second] = [await silentConnection(port), await silentConnection(port)];
      const third = await silentConnection(port);
      expect(await closesWithin(third, 250)).toBe(true);
      const lived = await Promise.all([timeUntil(first, 'close'), timeUntil(second, 'close')]);
      expect(Math.max(...lived)).toBeLessThan(5000);
    } finally {
      await service.shutdown();
    }
  });
});
