import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { seriesHistogram } from '../../core/metrics/series-histogram';

const BUCKETS = [0.001, 0.01, 0.1, 1];
// Below, on and between the bounds, and past the last one (only +Inf counts it).
const OBSERVED = [0.0005, 0.001, 0.002, 0.01, 0.05, 0.1, 0.5, 1, 2, 7.5];

type Labels = { gateway: string; operation: string };

/** Every sample of `registry` as "name{sorted labels} value" lines, in a stable order. */
async function samples(registry: Registry): Promise<string[]> {
  const metrics = await registry.getMetricsAsJSON();
  return metrics
    .flatMap((metric) =>
      metric.values.map((sample) => {
        const {
          metricName = metric.name,
          labels,
          value,
        } = sample as typeof sample & {
          metricName?: string;
        };
        const text = Object.entries(labels)
          .map(([name, label]) => `${name}=${String(label)}`)
          .sort()
          .join(',');
        return `${metricName}{${text}} ${value}`;
      }),
    )
    .sort();
}

function ours(registry: Registry) {
  return seriesHistogram<keyof Labels>({
    name: 'test_duration_seconds',
    help: 'A test histogram.',
    labelNames: ['gateway', 'operation'],
    buckets: BUCKETS,
    registers: [registry],
  });
}

function promClients(registry: Registry) {
  return new Histogram<keyof Labels>({
    name: 'test_duration_seconds',
    help: 'A test histogram.',
    labelNames: ['gateway', 'operation'],
    buckets: BUCKETS,
    registers: [registry],
  });
}

describe('the bound-series histogram', () => {
  it("reports exactly what prom-client's own Histogram reports for the same observations", async () => {
    const mine = new Registry();
    const reference = new Registry();
    const histogram = ours(mine);
    const rest = histogram.series({ gateway: 'rest', operation: 'create' });
    const grpc = histogram.series({ gateway: 'grpc', operation: 'create' });
    const expected = promClients(reference);
    for (const value of OBSERVED) {
      rest(value);
      expected.observe({ gateway: 'rest', operation: 'create' }, value);
    }
    grpc(0.02);
    expected.observe({ gateway: 'grpc', operation: 'create' }, 0.02);

    expect(await samples(mine)).toEqual(await samples(reference));
    expect(await samples(mine)).toContain(
      'test_duration_seconds_bucket{gateway=rest,le=0.001,operation=create} 2',
    );
    expect(await samples(mine)).toContain(
      'test_duration_seconds_count{gateway=rest,operation=create} 10',
    );
  });

  it('exposes a bound series before its first observation, and reset zeroes it', async () => {
    const registry = new Registry();
    const observe = ours(registry).series({ gateway: 'rest', operation: 'follow' });
    const text = await registry.metrics();
    expect(text).toContain('# TYPE test_duration_seconds histogram');
    expect(text).toMatch(/test_duration_seconds_count\{[^}]*operation="follow"[^}]*\} 0/);

    observe(0.05);
    expect(await registry.metrics()).toMatch(/test_duration_seconds_sum\{[^}]*\} 0\.05/);
    registry.resetMetrics();
    expect(await registry.metrics()).toMatch(/test_duration_seconds_count\{[^}]*\} 0/);
  });

  it('the same label set bound twice is one series', async () => {
    const registry = new Registry();
    const histogram = ours(registry);
    histogram.series({ gateway: 'rest', operation: 'create' })(0.5);
    histogram.series({ gateway: 'rest', operation: 'create' })(0.5);
    expect(await samples(registry)).toContain(
      'test_duration_seconds_count{gateway=rest,operation=create} 2',
    );
  });

  it("sums across processes in prom-client's cluster aggregator", async () => {
    const workers = [new Registry(), new Registry()];
    workers.forEach((registry, index) => {
      const observe = ours(registry).series({ gateway: 'rest', operation: 'create' });
      for (let i = 0; i <= index; i += 1) observe(0.005);
    });
    const aggregated = AggregatorRegistry.aggregate(
      await Promise.all(workers.map((registry) => registry.getMetricsAsJSON())),
    );
    const text = await aggregated.metrics();
    expect(text).toMatch(/test_duration_seconds_count\{[^}]*\} 3/);
    expect(text).toMatch(/test_duration_seconds_bucket\{[^}]*le="0.01"[^}]*\} 3/);
  });
});
