import { Counter, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { seriesKey } from './series-histogram';

/** A counter incremented through label sets bound once: the only way the service counts. */
export interface SeriesCounter<T extends string> {
  /** Adds one to the series of `labels`; bind it once where the event happens often. */
  series(labels: Readonly<Record<T, string>>): () => void;
}

interface Series {
  labels: Record<string, string>;
  value: number;
}

type Exported = MetricObjectWithValues<MetricValue<string>>;

/**
 * A prom-client Counter with the same change as the series histogram (see there): prom-client's
 * labelled `inc` validates the labels and builds a string key from them on every call, and a
 * create counts twice. Each label set is bound once and counted in place; `get()` answers
 * prom-client's own shape, so the registry, the exposition and the cluster aggregator are
 * unchanged. Count only through `series`.
 */
class BoundSeriesCounter<T extends string> extends Counter<T> implements SeriesCounter<T> {
  private readonly bound = new Map<string, Series>();
  // prom-client keeps these too, but its type declarations do not show them.
  private readonly metricName: string;
  private readonly metricHelp: string;
  private readonly labelOrder: readonly T[];

  constructor(config: {
    name: string;
    help: string;
    labelNames: readonly T[];
    registers: NonNullable<ConstructorParameters<typeof Counter<T>>[0]['registers']>;
  }) {
    super({ ...config, labelNames: [...config.labelNames] });
    this.metricName = config.name;
    this.metricHelp = config.help;
    this.labelOrder = config.labelNames;
  }

  series(labels: Readonly<Record<T, string>>): () => void {
    const key = seriesKey(this.labelOrder, labels);
    let series = this.bound.get(key);
    if (!series) {
      series = { labels: { ...labels }, value: 0 };
      this.bound.set(key, series);
    }
    const target = series;
    return () => {
      target.value += 1;
    };
  }

  override reset(): void {
    // prom-client's constructor calls reset() before this class's fields exist.
    const bound = this.bound as Map<string, Series> | undefined;
    if (!bound) return;
    for (const series of bound.values()) series.value = 0;
  }

  override get(): Promise<Exported> {
    const values = [...this.bound.values()].map(({ labels, value }) => ({
      labels: { ...labels },
      value,
    }));
    // What prom-client's own Counter answers at run time (see the series histogram).
    const exported = {
      name: this.metricName,
      help: this.metricHelp,
      type: 'counter',
      values,
      aggregator: 'sum',
    };
    return Promise.resolve(exported as unknown as Exported);
  }
}

/** A counter on `registers`, counted through bound label sets. */
export function seriesCounter<T extends string>(
  config: ConstructorParameters<typeof BoundSeriesCounter<T>>[0],
): SeriesCounter<T> {
  return new BoundSeriesCounter(config);
}
