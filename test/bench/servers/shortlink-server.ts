import { loadConfig } from '../../../core/runtime';
import { createLogger } from '../../../gateway-http/logger';
import { startService } from '../../../gateway-http/service';
import { loadServiceSettings } from '../../../gateway-http/service-settings';
import { failChild, onStopRequest, tellParent } from '../support/child';

/**
 * The subject: the service exactly as `npm start` composes it (configuration from the
 * environment, the process logger, every gateway), in its own process. The parent sets only
 * PORT/GRPC_PORT (0), SHORTLINK_SEED_FILE and RATE_LIMIT_PER_MINUTE.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const service = await startService(loadServiceSettings(), logger);
  onStopRequest(() => service.shutdown());
  await tellParent({ type: 'ready', httpPort: service.http.port, grpcPort: grpcPortOf(service) });
}

/** The gRPC gateway's port, when this build of the service has one. */
function grpcPortOf(service: object): number | null {
  const grpc = (service as { grpc?: { port?: unknown } }).grpc;
  return typeof grpc?.port === 'number' ? grpc.port : null;
}

main().catch(failChild);
