/**
 * What the primary and its workers tell each other over the cluster's IPC channel, besides the
 * rate limits' own (channel `shortlink:rate-limits`, in core/adapters/rate-limit/cluster/).
 */
export const WORKER_READY = 'shortlink:worker-ready';

export interface WorkerReady {
  type: typeof WORKER_READY;
  /** The bound port of each gateway, by name. */
  ports: Record<string, number>;
}

export function isWorkerReady(message: unknown): message is WorkerReady {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { type?: unknown }).type === WORKER_READY
  );
}

/**
 * From the primary to a worker: every worker listens (sent to all once the start-up's workers
 * are ready, and to a replacement once it is). Until then a worker's /readyz answers 503.
 */
export const WORKERS_LISTENING = 'shortlink:workers-listening';

export function isWorkersListening(message: unknown): boolean {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { type?: unknown }).type === WORKERS_LISTENING
  );
}

/**
 * The environment variable by which the primary tells a worker whether it is the first one: only
 * the first provisions the demo and prints its banner. Internal; not a setting.
 */
export const WORKER_ROLE_ENV = 'SHORTLINK_WORKER_ROLE';
export type WorkerRole = 'first' | 'other';
