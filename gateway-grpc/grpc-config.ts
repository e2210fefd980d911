import { z } from 'zod';
import {
  flagSetting,
  nonnegativeSetting,
  parseSettings,
  portSetting,
  positiveTimerMsSetting,
  SHARED_GATEWAY_SETTINGS,
  timerMsSetting,
} from '../core/runtime';
import {
  GRPC_CONNECTION_DEFAULTS as DEFAULTS,
  type GrpcConnectionLimits,
} from './connection/connection-limits';

/** The gRPC gateway's own settings, from the environment. */
export const GRPC_SETTINGS = {
  /** The gRPC port (0: any free port). */
  GRPC_PORT: portSetting.default(50051),

  // What one client may hold on the gRPC port (connection/connection-limits.ts).
  /** From a connection's accept to its HTTP/2 preface and first call; then it is closed. */
  GRPC_HANDSHAKE_TIMEOUT_MS: positiveTimerMsSetting.default(DEFAULTS.handshakeTimeoutMs),
  /** From a call's headers to each request message and the request's end; then it is ended. */
  GRPC_MESSAGE_TIMEOUT_MS: positiveTimerMsSetting.default(DEFAULTS.messageTimeoutMs),
  /** A connection without a call for this long is closed (GOAWAY); 0: never. */
  GRPC_MAX_CONNECTION_IDLE_MS: timerMsSetting.default(DEFAULTS.maxConnectionIdleMs),
  /** A connection is told to go away after this long, ±10%; 0: never. */
  GRPC_MAX_CONNECTION_AGE_MS: timerMsSetting.default(DEFAULTS.maxConnectionAgeMs),
  /** How long calls running at that GOAWAY may go on before the connection is cut. */
  GRPC_MAX_CONNECTION_AGE_GRACE_MS: timerMsSetting.default(DEFAULTS.maxConnectionAgeGraceMs),
  /** Shortest period between a client's pings while it has calls open; a quicker one is a strike. */
  GRPC_KEEPALIVE_MIN_TIME_MS: timerMsSetting.default(DEFAULTS.keepaliveMinTimeMs),
  /** `1`: a client may ping while it has no call open (else one ping per two hours). */
  GRPC_KEEPALIVE_PERMIT_WITHOUT_CALLS: flagSetting,
  /** Ping strikes allowed; the next closes the connection (GOAWAY too_many_pings). */
  GRPC_MAX_PING_STRIKES: nonnegativeSetting.default(DEFAULTS.maxPingStrikes),
  /** Open gRPC connections one client address may hold; 0: no cap. */
  GRPC_MAX_CONNECTIONS_PER_ADDRESS: nonnegativeSetting.default(DEFAULTS.maxConnectionsPerAddress),
};
const grpcConfigSchema = z.object({ ...SHARED_GATEWAY_SETTINGS, ...GRPC_SETTINGS });

export type GrpcConfig = z.output<typeof grpcConfigSchema>;

export function loadGrpcConfig(env: NodeJS.ProcessEnv = process.env): GrpcConfig {
  return parseSettings(grpcConfigSchema, env);
}

/** The connection limits the settings give. */
export function connectionLimitsOf(config: GrpcConfig): GrpcConnectionLimits {
  return {
    handshakeTimeoutMs: config.GRPC_HANDSHAKE_TIMEOUT_MS,
    messageTimeoutMs: config.GRPC_MESSAGE_TIMEOUT_MS,
    maxConnectionIdleMs: config.GRPC_MAX_CONNECTION_IDLE_MS,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
    keepaliveMinTimeMs: config.GRPC_KEEPALIVE_MIN_TIME_MS,
    keepalivePermitWithoutCalls: config.GRPC_KEEPALIVE_PERMIT_WITHOUT_CALLS,
    maxPingStrikes: config.GRPC_MAX_PING_STRIKES,
    maxConnectionsPerAddress: config.GRPC_MAX_CONNECTIONS_PER_ADDRESS,
  };
}
