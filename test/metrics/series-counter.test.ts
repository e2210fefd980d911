import { AggregatorRegistry, Counter, Registry } from 'prom-client';
import { seriesCounter } from '../../core/metrics/series-counter';

type Labels = 'gateway' | 'code';

const config = (registry: Registry) => ({
  name: 'test_requests_total',
  help: 'A test counter.',
  labelNames: ['gateway', 'code'] as Labels[],
  registers: [registry],
});

/** The counter's samples as "{sorted labels} value" lines. */
async function samples(registry: Registry): Promise<string[]> {
  const [metric] = await registry.getMetricsAsJSON();
  return (metric?.values ?? [])
    .map(({ labels, value }) => {
      const text = Object.entries(labels)
        .map(([name, label]) => `${name}=${String(label)}`)
        .sort()
        .join(',');
      return `{${text}} ${value}`;
    })
    .sort();
}

describe('the bound-series counter', () => {
  it("reports what prom-client's own Counter reports for the same increments, and the text format", async () => {
    const mine = new Registry();
    const reference = new Registry();
    const counter = seriesCounter(config(mine));
    const expected = new Counter(config(reference));
    const ok = counter.series({ gateway: 'rest', code: '0' });
    for (let i = 0; i < 5; i += 1) {
      ok();
      expected.inc({ gateway: 'rest', code: '0' });
    }
    counter.series({ code: '19', gateway: 'grpc' })();
    expected.inc({ gateway: 'grpc', code: '19' });

    expect(await samples(mine)).toEqual(await samples(reference));
    expect(await samples(mine)).toEqual(['{code=0,gateway=rest} 5', '{code=19,gateway=grpc} 1']);
    const text = await mine.metrics();
    expect(text).toContain('# TYPE test_requests_total counter');
    expect(text).toContain('test_requests_total{gateway="rest",code="0"} 5');
  });

  it('shows a bound series at 0 before its first count; reset zeroes it', async () => {
    const registry = new Registry();
    const count = seriesCounter(config(registry)).series({ gateway: 'rest', code: '0' });
    expect(await samples(registry)).toEqual(['{code=0,gateway=rest} 0']);
    count();
    registry.resetMetrics();
    expect(await samples(registry)).toEqual(['{code=0,gateway=rest} 0']);
  });

  it("sums across processes in prom-client's cluster aggregator", async () => {
    const workers = [new Registry(), new Registry()];
    workers.forEach((registry, index) => {
      const count = seriesCounter(config(registry)).series({ gateway: 'rest', code: '0' });
      for (let i = 0; i <= index; i += 1) count();
    });
    const aggregated = AggregatorRegistry.aggregate(
      await Promise.all(workers.map((registry) => registry.getMetricsAsJSON())),
    );
    expect(await aggregated.metrics()).toContain('test_requests_total{gateway="rest",code="0"} 3');
  });
});
