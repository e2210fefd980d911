import type { GatewayFactory } from '../core/runtime';
import { connectionLimitsOf, type GrpcConfig } from './grpc-config';
import { listenGrpc, type RunningGrpcServer } from './grpc-server';

/** The gRPC gateway as the composition root starts it, with this gateway's settings. */
export function grpcGateway(config: GrpcConfig): GatewayFactory<RunningGrpcServer> {
  return (context) => ({
    name: 'gRPC',
    host: config.HOST,
    port: config.GRPC_PORT,
    portSetting: 'GRPC_PORT',
    listen: () =>
      listenGrpc(context.runtime.core, {
        port: config.GRPC_PORT,
        host: config.HOST,
        logger: context.logger,
        trustProxy: config.TRUST_PROXY,
        shutdownTimeoutMs: context.drainTimeoutMs,
        metrics: context.runtime.metrics,
        connectionLimits: connectionLimitsOf(config),
        reusePort: context.reusePort,
      }),
  });
}
