/** The gRPC gateway: shortlink.v1.ShortLinkService, health and reflection on the core. */
export { listenGrpc, SHORTLINK_SERVICE_NAME } from './grpc-server';
export { grpcGateway } from './grpc-gateway';
export { loadGrpcConfig } from './grpc-config';
export type { RunningGrpcServer } from './grpc-server';
export {
  GRPC_CONNECTION_DEFAULTS,
  type GrpcConnectionLimits,
} from './connection/connection-limits';
export { GRPC_STATUS_BY_REASON } from './status-by-reason';
export { ERROR_CODE_METADATA } from './error-status';
