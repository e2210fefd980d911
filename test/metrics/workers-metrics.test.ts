import { EventEmitter } from 'node:events';
import { Registry } from 'prom-client';
import { ShortlinkMetrics } from '../../core';
import { WORKER_READY } from '../../core/runtime';
import { readyWorkersMetrics, type MetricsWorker } from '../../gateway-http/workers-metrics';

/** A worker as the primary's aggregator sees it: it records the requests sent to it. */
class FakeWorker implements MetricsWorker {
  readonly requests: number[] = [];
  send(message: unknown): boolean {
    this.requests.push((message as { requestId: number }).requestId);
    return true;
  }
  isConnected(): boolean {
    return true;
  }
}

/** One worker's answer (prom-client's getMetricsAsJSON per registry) with one counter. */
const counted = (value: number) => [
  [
    {
      help: 'h',
      name: 'c_total',
      type: 'counter',
      aggregator: 'sum',
      values: [{ value, labels: {} }],
    },
  ],
];

const counterIn = (text: string) => Number(/^c_total (\S+)$/m.exec(text)?.[1]);

describe('the WORKERS primary sums the workers that started', () => {
  it('counts a worker that answered and then exited during the same scrape once', async () => {
    const cluster = new EventEmitter();
    const metrics = readyWorkersMetrics(cluster);
    const [a, b] = [new FakeWorker(), new FakeWorker()];
    for (const worker of [a, b]) cluster.emit('message', worker, { type: WORKER_READY, ports: {} });
    const answer = (worker: FakeWorker, value: number) =>
      cluster.emit('message', worker, {
        type: 'prom-client:getMetricsRes',
        requestId: worker.requests.at(-1),
        metrics: counted(value),
      });

    const first = metrics.metrics();
    answer(a, 5);
    cluster.emit('exit', a); // A answered, then crashed before B answered.
    answer(b, 3);
    const second = (async () => {
      const text = await first;
      const next = metrics.metrics();
      answer(b, 3);
      return [text, await next];
    })();
    // A's 5 counted once, live or retired: the sum must not fall back on the next scrape.
    expect((await second).map(counterIn)).toEqual([8, 8]);
  });
});

describe("the WORKERS primary sums the service's own counters", () => {
  it('adds up the follows by outcome and the link state changes of every worker', async () => {
    const cluster = new EventEmitter();
    const metrics = readyWorkersMetrics(cluster);
    const workers = [new FakeWorker(), new FakeWorker()];
    const counted = workers.map(
      () => new ShortlinkMetrics({ registry: new Registry(), processMetrics: false }),
    );
    const [first, second] = counted as [ShortlinkMetrics, ShortlinkMetrics];
    for (const code of [0, 0, 28]) first.follows('rest')(code);
    for (const code of [0, 24, 28, 28]) second.follows('rest')(code);
    second.follows('grpc')(28);
    first.linkEvents().stateChanged('disabled');
    second.linkEvents().stateChanged('disabled');
    second.linkEvents().stateChanged('enabled');
    for (const worker of workers) {
      cluster.emit('message', worker, { type: WORKER_READY, ports: {} });
    }

    const scraped = metrics.metrics();
    for (const [index, worker] of workers.entries()) {
      cluster.emit('message', worker, {
        type: 'prom-client:getMetricsRes',
        requestId: worker.requests.at(-1),
        metrics: [await counted[index]!.registry.getMetricsAsJSON()],
      });
    }
    const text = await scraped;
    /** The value of one sample line, `name{labels} value`; NaN when the scrape lacks it. */
    const sample = (series: string) =>
      Number(
        text
          .split('\n')
          .find((line) => line.startsWith(`${series} `))
          ?.slice(series.length),
      );
    expect({
      restRedirect: sample('shortlink_follows_total{gateway="rest",outcome="redirect"}'),
      restNotFound: sample('shortlink_follows_total{gateway="rest",outcome="not_found"}'),
      restGone: sample('shortlink_follows_total{gateway="rest",outcome="gone"}'),
      grpcGone: sample('shortlink_follows_total{gateway="grpc",outcome="gone"}'),
      disabled: sample('shortlink_link_state_changes_total{change="disabled"}'),
      enabled: sample('shortlink_link_state_changes_total{change="enabled"}'),
    }).toEqual({
      restRedirect: 3,
      restNotFound: 1,
      restGone: 3,
      grpcGone: 1,
      disabled: 2,
      enabled: 1,
    });
  });
});
