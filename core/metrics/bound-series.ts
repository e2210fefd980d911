import type { MetricObjectWithValues, MetricValue, Registry } from 'prom-client';

/** What a series counter or histogram is made with (a histogram adds its buckets). */
export interface SeriesMetricConfig<T extends string> {
  name: string;
  help: string;
  labelNames: readonly T[];
  registers: Registry[];
}

/** Every series a metric holds: labels plus what the metric keeps per label set. */
export interface SeriesState {
  labels: Record<string, string>;
}

/**
 * The series of one metric by label set, for the series counter and histogram: each is made on
 * first use and kept, so a caller that binds a label set once never looks it up again.
 */
export class BoundSeries<T extends string, S extends SeriesState> {
  private readonly byKey = new Map<string, S>();

  constructor(
    private readonly labelOrder: readonly T[],
    private readonly make: (labels: Record<string, string>) => S,
  ) {}

  /** The series of `labels`, whatever the order of the object's fields. */
  of(labels: Readonly<Record<T, string>>): S {
    const key = this.labelOrder.map((name) => labels[name]).join('\u0000');
    let series = this.byKey.get(key);
    if (!series) {
      series = this.make({ ...labels });
      this.byKey.set(key, series);
    }
    return series;
  }

  all(): IterableIterator<S> {
    return this.byKey.values();
  }
}

/**
 * A metric's samples as prom-client's own Counter and Histogram answer `get()` at run time: the
 * type as text and the sum aggregator (their type declarations describe the type as an enum and
 * list a collect function).
 */
export function promClientSamples<V extends MetricValue<string>>(
  description: { name: string; help: string },
  type: 'counter' | 'histogram',
  values: V[],
): MetricObjectWithValues<V> {
  const exported = { ...description, type, values, aggregator: 'sum' };
  return exported as unknown as MetricObjectWithValues<V>;
}
