import cluster, { type Worker } from 'node:cluster';
import { holdClusterRateLimits } from '../../adapters/rate-limit/cluster-rate-limiter';
import type { Logger } from '../../ports/logger';
import { MAX_TIMER_MS } from '../settings';
import { MAX_WORKERS } from '../config';
import { RestartBackoff, type BackoffOptions } from './restart-backoff';
import {
  isWorkerReady,
  WORKERS_LISTENING,
  WORKER_ROLE_ENV,
  type WorkerReady,
  type WorkerRole,
} from './worker-messages';

interface SuperviseOptions {
  workers: number;
  /** Each worker's own graceful-stop deadline (SHUTDOWN_TIMEOUT_MS). */
  shutdownTimeoutMs: number;
  logger: Logger;
  backoff?: BackoffOptions;
  /** Environment variables every worker gets over the primary's (the ports it reserved). */
  workerEnv?: Record<string, string>;
}

export interface Supervisor {
  /** The pids of the running workers. */
  pids(): number[];
  /** Resolves with the process's exit code once a stop signal has stopped every worker. */
  stopped: Promise<number>;
}

/**
 * The signals that stop the service gracefully, as they stop one process (close-with-grace):
 * SIGHUP too, which would otherwise end the primary at once, and with it every worker's
 * in-flight requests (a worker exits as soon as its primary's channel closes).
 */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** Extra time the primary gives workers beyond their own deadline before it kills them. */
const KILL_GRACE_MS = 2_000;

/**
 * When the primary kills the workers still running: the grace after their own deadline, capped at
 * the longest delay a timer keeps (a longer one would fire at once, killing them at the start).
 */
const killDeadlineMs = (shutdownTimeoutMs: number) =>
  Math.min(shutdownTimeoutMs + KILL_GRACE_MS, MAX_TIMER_MS);

/**
 * The cluster's primary: holds the shared rate-limit counters, forks `workers` workers (the first
 * alone, so it alone provisions the demo and prints the banner, and the others start on what it
 * made), restarts a worker that exits with back-off, and on SIGTERM, SIGINT or SIGHUP asks every worker
 * to stop gracefully (SIGTERM) and waits for them. Serves nothing itself: the workers accept the
 * connections on the shared ports.
 *
 * Rejects when a worker fails to start (after stopping the others): a service that cannot start
 * is not restarted in a loop.
 */
export async function superviseWorkers(options: SuperviseOptions): Promise<Supervisor> {
  const { logger } = options;
  // The bound loadConfig holds WORKERS to, for an embedder that calls this directly.
  if (!Number.isInteger(options.workers) || options.workers < 1 || options.workers > MAX_WORKERS) {
    throw new RangeError(`workers must be a whole number from 1 to ${MAX_WORKERS}`);
  }
  const backoff = new RestartBackoff(options.backoff);
  const live = new Map<Worker, number>(); // worker → when it was forked
  const ready = new WeakSet<Worker>(); // the workers that said they are serving
  const restarts = new Set<NodeJS.Timeout>();
  let started = false;
  let stopping = false;
  let exitCode = 0;
  let allStopped: () => void = () => undefined;
  const whenAllStopped = new Promise<void>((resolve) => (allStopped = resolve));

  holdClusterRateLimits();
  // Every worker accepts from the shared listening sockets itself, rather than the primary
  // accepting and handing each connection on (node's round-robin, its default on Linux). With
  // the hand-off, a burst of connections past a worker's open-file limit left the primary waiting
  // for an acknowledgement that never came: the port accepted connections and answered none,
  // for good, after the burst was over. A worker that accepts itself meets EMFILE in its own
  // accept loop, which libuv recovers from once files are free. Frozen at the first fork. Where
  // `workersReusePort` holds, the workers bind sockets of their own instead, and this is moot.
  cluster.schedulingPolicy = cluster.SCHED_NONE;

  /** The workers the start-up sequence forks: their failure to start fails the start. */
  const startupWorkers = new Set<Worker>();
  const fork = (role: WorkerRole, atStartup = false) =>
    new Promise<WorkerReady>((resolve, reject) => {
      const worker = cluster.fork({ ...options.workerEnv, [WORKER_ROLE_ENV]: role });
      live.set(worker, Date.now());
      if (atStartup) startupWorkers.add(worker);
      // A message sent without a callback to a worker that has just died reports EPIPE as an
      // 'error' event on the worker; unheard, it would stop the primary and every other worker.
      worker.on('error', (error) =>
        logger.warn({ err: error, worker: worker.process.pid }, 'message to a worker failed'),
      );
      const onMessage = (message: unknown) => {
        if (!isWorkerReady(message)) return;
        worker.off('message', onMessage);
        ready.add(worker);
        // A replacement joins workers that all listen; the start-up's are told together below.
        if (started) tellListening(worker);
        resolve(message);
      };
      worker.on('message', onMessage);
      worker.once('exit', (code, signal) => {
        worker.off('message', onMessage);
        reject(
          new Error(`worker ${worker.process.pid} exited during start-up (${signal ?? code})`),
        );
      });
    });

  const tellListening = (worker: Worker) => {
    if (worker.isConnected()) worker.send({ type: WORKERS_LISTENING });
  };
  const pids = () => [...live.keys()].map((worker) => worker.process.pid ?? 0);

  cluster.on('exit', (worker, code, signal) => {
    const forkedAt = live.get(worker) ?? Date.now();
    live.delete(worker);
    if (stopping) {
      // A worker still starting when the stop came may end by that SIGTERM before it hears
      // signals (while node loads its modules): it held no request, so it stopped cleanly.
      const stoppedWhileStarting = signal === 'SIGTERM' && !ready.has(worker);
      if (code !== 0 && !stoppedWhileStarting) exitCode = 1;
      if (live.size === 0) allStopped();
      return;
    }
    // A start-up worker that never became ready rejects the start below. Any other exit is a
    // crash like any other, replaced: a start-up worker that had started and ends while the
    // others start, and a replacement (forked during the start-up too) that dies while starting.
    if (!started && startupWorkers.has(worker) && !ready.has(worker)) return;
    const delay = backoff.next(Date.now() - forkedAt);
    logger.error(
      { worker: worker.process.pid, code, signal, restartInMs: delay },
      'worker exited unexpectedly; restarting it',
    );
    const delayed = setTimeout(() => {
      restarts.delete(delayed);
      if (stopping) return;
      fork('other').then(
        () => logger.info({ workers: pids() }, 'worker restarted'),
        () => undefined, // its exit is handled (and logged) like any other
      );
    }, delay);
    restarts.add(delayed);
  });

  const stop = (reason: { signal: NodeJS.Signals } | { reason: string }) => {
    if (stopping) return;
    stopping = true;
    logger.info({ ...reason, workers: pids() }, 'shutting down');
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    if (live.size === 0) allStopped();
    for (const worker of live.keys()) worker.process.kill('SIGTERM');
    const deadline = setTimeout(() => {
      logger.error(
        { workers: pids() },
        'workers still running at the shutdown deadline; killing them',
      );
      exitCode = 1;
      for (const worker of live.keys()) worker.process.kill('SIGKILL');
    }, killDeadlineMs(options.shutdownTimeoutMs));
    void whenAllStopped.then(() => clearTimeout(deadline));
  };
  // SIGINT (or SIGHUP) from a terminal reaches the workers too; they treat a repeated stop
  // signal as one.
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop({ signal }));

  let ports: WorkerReady['ports'];
  try {
    ({ ports } = await fork('first', true));
    // A stop signal during the first worker's start-up forks no more.
    if (!stopping) {
      await Promise.all(Array.from({ length: options.workers - 1 }, () => fork('other', true)));
    }
  } catch (error) {
    // A worker that ends because a stop signal came during the start-up has not failed.
    const stoppedBySignal = stopping;
    stop({ reason: 'a worker failed to start' });
    await whenAllStopped;
    if (!stoppedBySignal) throw error;
    return { pids, stopped: Promise.resolve(exitCode) };
  }
  if (!stopping) {
    started = true;
    for (const worker of live.keys()) if (ready.has(worker)) tellListening(worker);
    logger.info({ workers: pids(), ports }, 'workers ready');
  }
  return { pids, stopped: whenAllStopped.then(() => exitCode) };
}
