import cluster, { type Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { silentLogger } from '../../core';
import { MAX_TIMER_MS } from '../../core/runtime/settings';
import { superviseWorkers } from '../../core/runtime/cluster/supervise-workers';
import { WORKER_READY } from '../../core/runtime/cluster/worker-messages';

/** A stand-in for a forked worker: it records the signals the primary sends it. */
class FakeWorker extends EventEmitter {
  readonly signals: string[] = [];
  readonly process = { pid: 4242, kill: (signal: string) => this.signals.push(signal) };
}

describe("the WORKERS primary's kill deadline on shutdown", () => {
  let worker: FakeWorker;
  const signalListeners = process.listeners('SIGTERM');
  const clusterListeners = cluster.listeners('exit');

  beforeEach(() => {
    jest.useFakeTimers();
    worker = new FakeWorker();
    jest.spyOn(cluster, 'fork').mockImplementation(() => {
      // Ready as soon as the primary listens for it.
      void Promise.resolve().then(() =>
        worker.emit('message', { type: WORKER_READY, ports: { rest: 1 } }),
      );
      return worker as unknown as Worker;
    });
  });

  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
    for (const listener of process.listeners('SIGTERM')) {
      if (!signalListeners.includes(listener)) process.off('SIGTERM', listener);
    }
    for (const listener of cluster.listeners('exit')) {
      if (!clusterListeners.includes(listener)) cluster.off('exit', listener as () => void);
    }
  });

  async function stopWith(shutdownTimeoutMs: number, waitedMs: number) {
    const supervisor = await superviseWorkers({
      workers: 1,
      shutdownTimeoutMs,
      logger: silentLogger,
    });
    process.emit('SIGTERM', 'SIGTERM');
    jest.advanceTimersByTime(waitedMs);
    const signals = [...worker.signals];
    cluster.emit('exit', worker, signals.includes('SIGKILL') ? null : 0, null);
    return { signals, exitCode: await supervisor.stopped };
  }

  it('kills the workers left 2 s after SHUTDOWN_TIMEOUT_MS', async () => {
    const { signals, exitCode } = await stopWith(1_000, 3_001);
    expect(signals).toEqual(['SIGTERM', 'SIGKILL']);
    expect(exitCode).toBe(1);
  });

  it('leaves them their whole time at the largest SHUTDOWN_TIMEOUT_MS (no timer overflow)', async () => {
    // Node fires a timer set past 2^31 - 1 ms after 1 ms; the deadline must not become that.
    const { signals, exitCode } = await stopWith(MAX_TIMER_MS, 60_000);
    expect(signals).toEqual(['SIGTERM']);
    expect(exitCode).toBe(0);
  });
});
