import { Counter, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import {
  BoundSeries,
  promClientSamples,
  type SeriesMetricConfig,
  type SeriesState,
} from './bound-series';

/** A counter incremented through label sets bound once: the only way the service counts. */
export interface SeriesCounter<T extends string> {
  /** Adds one to the series of `labels`; bind it once where the event happens often. */
  series(labels: Readonly<Record<T, string>>): () => void;
}

interface Series extends SeriesState {
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
  private readonly bound: BoundSeries<T, Series>;
  // prom-client keeps these too, but its type declarations do not show them.
  private readonly description: { name: string; help: string };

  constructor(config: SeriesMetricConfig<T>) {
    super({ ...config, labelNames: [...config.labelNames] });
    this.bound = new BoundSeries(config.labelNames, (labels) => ({ labels, value: 0 }));
    this.description = { name: config.name, help: config.help };
  }

  series(labels: Readonly<Record<T, string>>): () => void {
    const target = this.bound.of(labels);
    return () => {
      target.value += 1;
    };
  }

  override reset(): void {
    // prom-client's constructor calls reset() before this class's fields exist.
    const bound = this.bound as BoundSeries<T, Series> | undefined;
    if (!bound) return;
    for (const series of bound.all()) series.value = 0;
  }

  override get(): Promise<Exported> {
    const values = [...this.bound.all()].map(({ labels, value }) => ({
      labels: { ...labels },
      value,
    }));
    return Promise.resolve(promClientSamples(this.description, 'counter', values));
  }
}

/** A counter on `registers`, counted through bound label sets. */
export function seriesCounter<T extends string>(
  config: ConstructorParameters<typeof BoundSeriesCounter<T>>[0],
): SeriesCounter<T> {
  return new BoundSeriesCounter(config);
}
