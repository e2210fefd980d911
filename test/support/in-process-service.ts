import pino from 'pino';
import { IN_MEMORY_DATA_DIR } from '../../core/runtime';
import { startService, type Service } from '../../gateway-http/service';
import { loadServiceSettings } from '../../gateway-http/service-settings';
import { connectGrpc, type GrpcClientFixture } from './grpc-fixture';

/** What the in-process tests start the service with: free ports, no metrics, no store on disk. */
export const IN_PROCESS_ENV: Readonly<Record<string, string>> = {
  PORT: '0',
  GRPC_PORT: '0',
  METRICS_PORT: '0',
  LOG_LEVEL: 'silent',
  DATA_DIR: IN_MEMORY_DATA_DIR,
};

/** The whole service in this process, as `npm start` composes it: IN_PROCESS_ENV with `env` over it. */
export async function startInProcessService(env: Record<string, string> = {}): Promise<Service> {
  return startService(
    loadServiceSettings({ ...IN_PROCESS_ENV, ...env }),
    pino({ level: 'silent' }),
  );
}

export interface ServiceWithGrpcClient {
  service: Service;
  /** A generated client of the service's gRPC gateway. */
  grpc: GrpcClientFixture;
  /** Closes the client, then shuts the service down. */
  stop(): Promise<void>;
}

/** startInProcessService(env), and a gRPC client of it. */
export async function startServiceWithGrpcClient(
  env: Record<string, string> = {},
): Promise<ServiceWithGrpcClient> {
  const service = await startInProcessService(env);
  const grpc = connectGrpc(`127.0.0.1:${service.grpc.port}`);
  return {
    service,
    grpc,
    stop: async () => {
      await grpc.close();
      await service.shutdown();
    },
  };
}
