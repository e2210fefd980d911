import pino from 'pino';
import type { CachedStore, DemoCredentials, MemoryStore } from '../../core';
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

export interface TestService {
  service: Service;
  demo: DemoCredentials;
  /** `http://127.0.0.1:<port>` */
  base: string;
  port: number;
  /** The embedded store, read directly to count what was written. */
  store: MemoryStore;
  /** A valid create body for the demo organization, with `fields` merged over it. */
  validBody(fields?: Record<string, unknown>): Record<string, unknown>;
  authorization: string;
}

/** The whole service in-process on the embedded store (PORT=0, GRPC_PORT=0, no metrics port, silent logs). */
export async function startTestService(env: Record<string, string> = {}): Promise<TestService> {
  const service = await startInProcessService(env);
  const demo = service.demo;
  if (!demo) throw new Error('the embedded default should provision a demo organization');
  // The runtime puts the caches in front of the store; the links are counted in the store itself.
  const cached = service.runtime.core.deps.store;
  const store = 'backend' in cached ? (cached as CachedStore).backend : cached;
  if (store.kind !== 'memory') throw new Error('these tests count links in the memory store');
  return {
    service,
    demo,
    port: service.http.port,
    base: `http://127.0.0.1:${service.http.port}`,
    store: store as MemoryStore,
    authorization: `Bearer ${demo.token}`,
    validBody: (fields = {}) => ({
      organization_key: demo.organizationKey,
      url_group_id: demo.urlGroupId,
      url: 'https://example.com/some/long/path',
      ...fields,
    }),
  };
}

/** Budgets high enough that fuzzing and races are never cut short by the rate limits. */
export const UNLIMITED = {
  RATE_LIMIT_PER_MINUTE: '100000000',
  AUTH_FAILURES_PER_MINUTE: '100000000',
  FOLLOW_MISSES_PER_MINUTE: '0',
};
