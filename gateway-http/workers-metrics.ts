import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { isWorkerReady } from '../core/runtime';
import type { MetricsSource } from './metrics-server';

/** prom-client's own messages: its listener in each worker answers the request with its samples. */
const REQUEST = 'prom-client:getMetricsReq';
const RESPONSE = 'prom-client:getMetricsRes';

/** How long a ready worker may take to answer before the scrape fails (prom-client's own). */
const WORKER_METRICS_TIMEOUT_MS = 5000;

/** A worker as the primary's aggregator sees it. */
export interface MetricsWorker {
  send(message: unknown): unknown;
  isConnected(): boolean;
}

/** Where the primary hears its workers: node:cluster, or a test's stand-in. */
interface MetricsWorkerSource {
  on(event: 'message', listener: (worker: MetricsWorker, message: unknown) => void): unknown;
  on(event: 'exit', listener: (worker: MetricsWorker) => void): unknown;
}

/** One worker's answer: the samples of each of its registries (`getMetricsAsJSON()`). */
type WorkerSamples = object[][];

interface MetricsResponse {
  type: typeof RESPONSE;
  requestId: number;
  metrics?: unknown;
  error?: unknown;
}

const isResponse = (message: unknown): message is MetricsResponse =>
  typeof message === 'object' &&
  message !== null &&
  (message as { type?: unknown }).type === RESPONSE;

/** Series that only grow: what a worker counted stays counted after it exits. */
const isCumulative = (metric: object): boolean => {
  const type = (metric as { type?: unknown }).type;
  return type === 'counter' || type === 'histogram';
};

/** A worker's answer awaited by a scrape; the samples themselves go to `lastAnswers`. */
interface Pending {
  resolve(): void;
  reject(error: Error): void;
}

/**
 * What the primary serves with WORKERS: the sum of the samples of every worker that has started
 * (said it is ready). prom-client's own `clusterMetrics` asks every forked worker, and a worker
 * still starting (a replacement after a crash) has no listener yet: the scrape then waited 5 s
 * for it and failed. A ready worker that does not answer in time fails the scrape, as
 * prom-client's aggregator does.
 *
 * The counters and histograms of a worker that exited stay in the sums at the values of its last
 * answer: without them a crash or a restart made every summed counter go down, which Prometheus
 * reads as a reset, and `rate()` then counts the survivors' whole totals again as new. Only what
 * the worker counted after its last scrape is lost. Gauges (memory, queues) go with the worker.
 */
export function readyWorkersMetrics(source: MetricsWorkerSource = cluster): MetricsSource {
  const ready = new Set<MetricsWorker>();
  const pending = new Map<number, Map<MetricsWorker, Pending>>();
  /** Each ready worker's last answer. */
  const lastAnswers = new Map<MetricsWorker, WorkerSamples>();
  /** The cumulative samples of every worker that exited, summed into one registry's worth. */
  let retired: object[] = [];
  let nextRequest = 0;

  source.on('message', (worker, message) => {
    if (isWorkerReady(message)) {
      ready.add(worker);
      return;
    }
    if (!isResponse(message)) return;
    const waiting = pending.get(message.requestId)?.get(worker);
    if (!waiting) return;
    if (message.error !== undefined) {
      const reason = typeof message.error === 'string' ? message.error : 'collecting failed';
      waiting.reject(new Error(`a worker's metrics: ${reason}`));
    } else {
      const samples = Array.isArray(message.metrics) ? (message.metrics as WorkerSamples) : [];
      if (ready.has(worker)) lastAnswers.set(worker, samples);
      waiting.resolve();
    }
  });
  source.on('exit', (worker) => {
    ready.delete(worker);
    const last = lastAnswers.get(worker);
    lastAnswers.delete(worker);
    if (last) {
      const kept = [retired, ...last.map((registry) => registry.filter(isCumulative))];
      retired = AggregatorRegistry.aggregate(kept).getMetricsAsArray();
    }
    for (const request of pending.values()) request.get(worker)?.resolve();
  });

  const ask = (requestId: number, worker: MetricsWorker, request: Map<MetricsWorker, Pending>) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no metrics from a worker in ${WORKER_METRICS_TIMEOUT_MS} ms`)),
        WORKER_METRICS_TIMEOUT_MS,
      );
      const settle = () => {
        clearTimeout(timer);
        request.delete(worker);
      };
      request.set(worker, {
        resolve: () => (settle(), resolve()),
        reject: (error) => (settle(), reject(error)),
      });
      worker.send({ type: REQUEST, requestId });
    });

  return {
    contentType: AggregatorRegistry.PROMETHEUS_CONTENT_TYPE,
    async metrics() {
      const requestId = nextRequest++;
      const request = new Map<MetricsWorker, Pending>();
      pending.set(requestId, request);
      try {
        const asked = [...ready].filter((worker) => worker.isConnected());
        await Promise.all(asked.map((worker) => ask(requestId, worker, request)));
        // Summed from the state, not from this scrape's answers: a worker that answered and then
        // exited before the others did is in `retired` now, and must not count twice.
        const live = [...lastAnswers.values()].flat();
        return await AggregatorRegistry.aggregate([...live, retired]).metrics();
      } finally {
        pending.delete(requestId);
      }
    },
  };
}
