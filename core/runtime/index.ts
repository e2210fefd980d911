/**
 * `shortlink/runtime`: the process as `npm start` builds it, from environment variables. It loads
 * every driver the configuration may ask for (MongoDB, Redis, the reputation lookup's scheduler),
 * which is why it is a subpath of its own and not part of the main entry.
 */
export {
  loadConfig,
  configSchema,
  ConfigError,
  DEFAULT_DATA_DIR,
  DEFAULT_METRICS_MAX_CONCURRENT_SCRAPES,
  IN_MEMORY_DATA_DIR,
  MAX_WORKERS,
  settingsRules,
  type Config,
} from './config';
export { createRuntime, type Runtime, type RuntimeOptions } from './create-runtime';
export { createStoreFromConfig } from './store-from-config';
export { createLimitersFromConfig, type Limiters } from './limiters-from-config';
export { createUrlGuardFromConfig, type ConfiguredUrlGuard } from './url-guard-from-config';
export { compileTrustProxy, type TrustProxy } from './trust-proxy';
export {
  flagSetting,
  listSetting,
  nonnegativeSetting,
  optionalTextSetting,
  parseSettings,
  portSetting,
  positiveSetting,
  positiveTimerMsSetting,
  SHARED_GATEWAY_SETTINGS,
  timerMsSetting,
} from './settings';
export { limitConnectionsPerAddress } from './connections-per-address';
export { listenFailure } from './gateway';
export type { Gateway, GatewayContext, GatewayFactory, Listening, Readiness } from './gateway';
export {
  serveGateways,
  drainTimeoutMs,
  DRAIN_SHARE,
  type RunningService,
  type ServiceOptions,
} from './serve-gateways';
export { STOP_SIGNALS, superviseWorkers, type Supervisor } from './cluster/supervise-workers';
export { listenOptions, reservePort, workersReusePort } from './cluster/reuse-port';
export { claimServedDataDir } from './data-dir-claim';
export {
  isWorkerReady,
  isWorkersListening,
  WORKER_READY,
  WORKER_ROLE_ENV,
  type WorkerReady,
  type WorkerRole,
} from './cluster/worker-messages';
