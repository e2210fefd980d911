import cluster, { type Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { silentLogger } from '../../core';
import { MAX_TIMER_MS } from '../../core/runtime/settings';
import { superviseWorkers } from '../../core/runtime/cluster/supervise-workers';
import { MAX_WORKERS } from '../../core/runtime/config';
import { WORKER_READY, WORKERS_LISTENING } from '../../core/runtime/cluster/worker-messages';

/** A stand-in for a forked worker: it records the signals the primary sends it. */
class FakeWorker extends EventEmitter {
  readonly signals: string[] = [];
  /** The messages the primary sent it. */
  readonly sent: unknown[] = [];
  readonly process = { pid: 4242, kill: (signal: string) => this.signals.push(signal) };
  isConnected() {
    return true;
  }
  send(message: unknown) {
    this.sent.push(message);
    return true;
  }
}

const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * Fake timers and a `cluster.fork` that hands out the worker `make` gives, for each test of the
 * describe it is called in; after each, the signal and cluster listeners the primary added are
 * removed, so the next test (and jest itself) sees the process as it was.
 */
function withFakeCluster(make: () => FakeWorker): void {
  const signalListeners = new Map(
    STOP_SIGNALS.map((signal) => [signal, process.listeners(signal)]),
  );
  const clusterListeners = cluster.listeners('exit');
  beforeEach(() => {
    jest.useFakeTimers();
    jest.spyOn(cluster, 'fork').mockImplementation(() => make() as unknown as Worker);
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
    for (const signal of STOP_SIGNALS) {
      for (const listener of process.listeners(signal)) {
        if (!signalListeners.get(signal)!.includes(listener)) process.off(signal, listener);
      }
    }
    for (const listener of cluster.listeners('exit')) {
      if (!clusterListeners.includes(listener)) cluster.off('exit', listener as () => void);
    }
  });
}

/** A worker that says it is ready as soon as the primary listens for it. */
function readyWorker(): FakeWorker {
  const worker = new FakeWorker();
  void Promise.resolve().then(() =>
    worker.emit('message', { type: WORKER_READY, ports: { rest: 1 } }),
  );
  return worker;
}

describe("the WORKERS primary's kill deadline on shutdown", () => {
  let worker: FakeWorker;
  withFakeCluster(() => (worker = readyWorker()));

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

  it('stops the workers gracefully on SIGHUP, as one process does, rather than dying at once', async () => {
    const sighupListenersBefore = process.listenerCount('SIGHUP');
    const supervisor = await superviseWorkers({
      workers: 1,
      shutdownTimeoutMs: 1_000,
      logger: silentLogger,
    });
    // Unheard, a SIGHUP ends the primary at once and every worker with it, mid-request.
    expect(process.listenerCount('SIGHUP')).toBeGreaterThan(sighupListenersBefore);
    process.emit('SIGHUP', 'SIGHUP');
    expect(worker.signals).toEqual(['SIGTERM']);
    cluster.emit('exit', worker, 0, null);
    expect(await supervisor.stopped).toBe(0);
  });
});

describe('the primary while a worker is still starting', () => {
  let forked: FakeWorker[];
  /** Whether a forked worker says it is ready at once. */
  let readyAtOnce: boolean;
  withFakeCluster(() => {
    const worker = readyAtOnce ? readyWorker() : new FakeWorker();
    forked.push(worker);
    return worker;
  });
  beforeEach(() => {
    forked = [];
    readyAtOnce = true;
  });

  /** What a starting worker does with the SIGTERM before it listens for signals: it dies of it. */
  const diesOfSigterm = (worker: FakeWorker) => {
    expect(worker.signals).toEqual(['SIGTERM']);
    cluster.emit('exit', worker, null, 'SIGTERM');
  };

  it("exits 0 when the stop ends a crashed worker's replacement during its start-up", async () => {
    const supervisor = await superviseWorkers({
      workers: 1,
      shutdownTimeoutMs: 1_000,
      logger: silentLogger,
    });
    const [crashed] = forked as [FakeWorker];
    readyAtOnce = false;
    crashed.emit('exit', null, 'SIGKILL');
    cluster.emit('exit', crashed, null, 'SIGKILL');
    jest.advanceTimersByTime(100); // the first back-off
    expect(forked).toHaveLength(2);
    process.emit('SIGTERM', 'SIGTERM');
    diesOfSigterm(forked[1]!);
    expect(await supervisor.stopped).toBe(0);
  });

  it('stops rather than failing to start when the stop comes during the first start-up, and forks no more', async () => {
    readyAtOnce = false;
    const starting = superviseWorkers({
      workers: 2,
      shutdownTimeoutMs: 1_000,
      logger: silentLogger,
    });
    process.emit('SIGTERM', 'SIGTERM');
    const [first] = forked as [FakeWorker];
    first.emit('exit', null, 'SIGTERM');
    diesOfSigterm(first);
    const supervisor = await starting;
    expect(await supervisor.stopped).toBe(0);
    expect(forked).toHaveLength(1);
  });

  it('forks no more workers when the first, stopped during its start-up, still says it is ready', async () => {
    readyAtOnce = false;
    const starting = superviseWorkers({
      workers: 3,
      shutdownTimeoutMs: 1_000,
      logger: silentLogger,
    });
    process.emit('SIGTERM', 'SIGTERM');
    const [first] = forked as [FakeWorker];
    first.emit('message', { type: WORKER_READY, ports: { rest: 1 } });
    const supervisor = await starting;
    cluster.emit('exit', first, 0, null);
    expect(await supervisor.stopped).toBe(0);
    expect(forked).toHaveLength(1);
  });

  /**
   * Two workers: the first ready at once, the second only when the test says so; the first then
   * crashes while the second still starts.
   */
  async function firstCrashesWhileSecondStarts() {
    const starting = superviseWorkers({
      workers: 2,
      shutdownTimeoutMs: 1_000,
      logger: silentLogger,
    });
    readyAtOnce = false;
    for (let turn = 0; turn < 10 && forked.length < 2; turn += 1) await Promise.resolve();
    const [first, second] = forked as [FakeWorker, FakeWorker];
    expect(second).toBeDefined();
    first.emit('exit', null, 'SIGKILL');
    cluster.emit('exit', first, null, 'SIGKILL');
    return { starting, second };
  }

  it('restarts a worker that started and then crashed while the others were starting', async () => {
    const { starting, second } = await firstCrashesWhileSecondStarts();
    second.emit('message', { type: WORKER_READY, ports: { rest: 1 } });
    await starting;
    jest.advanceTimersByTime(100); // the first back-off
    expect(forked).toHaveLength(3);
  });

  it('replaces a replacement that dies in its own start-up while the others still start', async () => {
    const { starting, second } = await firstCrashesWhileSecondStarts();
    jest.advanceTimersByTime(100); // the first one's replacement is forked
    expect(forked).toHaveLength(3);
    const replacement = forked[2]!;
    replacement.emit('exit', 1, null);
    cluster.emit('exit', replacement, 1, null); // and dies while starting, the second still starting
    second.emit('message', { type: WORKER_READY, ports: { rest: 1 } });
    await starting;
    jest.advanceTimersByTime(60_000);
    expect(forked).toHaveLength(4); // replaced in turn, not left one worker short
  });
});

describe('a WORKERS count past what loadConfig allows, from an embedder', () => {
  withFakeCluster(() => readyWorker());

  it.each([0, 1.5, MAX_WORKERS + 1, 1000])('refuses %s and forks nothing', async (workers) => {
    await expect(
      superviseWorkers({ workers, shutdownTimeoutMs: 1_000, logger: silentLogger }),
    ).rejects.toThrow(new RangeError(`workers must be a whole number from 1 to ${MAX_WORKERS}`));
    expect(cluster.fork).not.toHaveBeenCalled();
  });
});

describe('readiness across the workers', () => {
  let forked: FakeWorker[];
  withFakeCluster(() => {
    const worker = new FakeWorker();
    forked.push(worker);
    return worker;
  });
  beforeEach(() => {
    forked = [];
  });
  const ready = (worker: FakeWorker) =>
    worker.emit('message', { type: WORKER_READY, ports: { rest: 1 } });
  const told = (worker: FakeWorker) =>
    worker.sent.filter((message) => (message as { type?: unknown }).type === WORKERS_LISTENING)
      .length;

  it('tells every worker that all listen only once the last one does, and a replacement when it does', async () => {
    const supervising = superviseWorkers({
      workers: 2,
      shutdownTimeoutMs: 1_000,
      logger: silentLogger,
    });
    await Promise.resolve();
    ready(forked[0]!);
    await jest.advanceTimersByTimeAsync(0);
    // The first worker listens, the second does not yet: its /readyz must stay 503.
    expect(forked).toHaveLength(2);
    expect(told(forked[0]!)).toBe(0);
    ready(forked[1]!);
    const supervisor = await supervising;
    expect(forked.map(told)).toEqual([1, 1]);

    cluster.emit('exit', forked[1], 1, null);
    await jest.advanceTimersByTimeAsync(60_000);
    const replacement = forked[2]!;
    expect(told(replacement)).toBe(0);
    ready(replacement);
    await jest.advanceTimersByTimeAsync(0);
    expect(forked.map(told)).toEqual([1, 1, 1]);

    process.emit('SIGTERM', 'SIGTERM');
    cluster.emit('exit', forked[0], 0, null);
    cluster.emit('exit', replacement, 0, null);
    expect(await supervisor.stopped).toBe(0);
  });
});
