import type { HealthImplementation } from 'grpc-health-check';
import type { Core, Logger } from '../core';

const DEFAULT_HEALTH_CHECK_INTERVAL_MS = 5000;

interface HealthFollower {
  /** Asks the store once and sets every entry to SERVING or NOT_SERVING from its answer. */
  check(): Promise<void>;
  /** Stops following and sets every entry to NOT_SERVING (shutdown). */
  stop(): void;
}

/**
 * Keeps gRPC health in step with the store, as /readyz is: the store is asked every
 * `intervalMs` (never twice at once), every entry follows its answer, and each change is logged
 * once. The timer does not keep the process alive.
 */
export function followStoreHealth(
  health: HealthImplementation,
  services: readonly string[],
  core: Core,
  logger: Logger,
  intervalMs: number = DEFAULT_HEALTH_CHECK_INTERVAL_MS,
): HealthFollower {
  let serving: boolean | undefined;
  let stopped = false;
  let inFlight: Promise<void> | undefined;

  const setAll = (status: 'SERVING' | 'NOT_SERVING') => {
    for (const service of services) health.setStatus(service, status);
  };
  const set = (next: boolean, error?: unknown) => {
    if (stopped || next === serving) return;
    const changed = serving !== undefined;
    serving = next;
    setAll(next ? 'SERVING' : 'NOT_SERVING');
    if (!next) logger.warn({ err: error }, 'the store did not answer; gRPC health is NOT_SERVING');
    else if (changed) logger.info('the store answers again; gRPC health is SERVING');
  };

  const check = () => {
    inFlight ??= core
      .ready()
      .then(
        () => set(true),
        (error: unknown) => set(false, error),
      )
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  return {
    check,
    stop: () => {
      stopped = true;
      clearInterval(timer);
      setAll('NOT_SERVING');
    },
  };
}
