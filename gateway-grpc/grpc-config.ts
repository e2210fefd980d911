import { z } from 'zod';
import { hostSetting, parseSettings, portSetting, trustProxySetting } from '../core';

/** The gRPC gateway's own settings, from the environment. */
export const grpcConfigSchema = z.object({
  GRPC_PORT: portSetting.default(50051),
  HOST: hostSetting,
  /** Whose `x-forwarded-for` metadata names the client, by the same rule as REST. */
  TRUST_PROXY: trustProxySetting,
});

export type GrpcConfig = z.output<typeof grpcConfigSchema>;

export function loadGrpcConfig(env: NodeJS.ProcessEnv = process.env): GrpcConfig {
  return parseSettings(grpcConfigSchema, env);
}
