import { spawnSync } from 'node:child_process';
import type { MetricObjectWithValues, MetricValue, Registry } from 'prom-client';
import { itNeeding } from './system-tools';

/** GET /metrics on 127.0.0.1:`port`: the status, content type and text. */
export async function scrape(
  port: number,
): Promise<{ status: number; type: string; text: string }> {
  const answer = await fetch(`http://127.0.0.1:${port}/metrics`);
  return {
    status: answer.status,
    type: answer.headers.get('content-type') ?? '',
    text: await answer.text(),
  };
}

/**
 * A registry's samples at one moment, as prom-client itself reports them (getMetricsAsJSON),
 * read by metric name and labels; a missing sample reads 0.
 */
export class MetricsSnapshot {
  private constructor(
    private readonly byName: ReadonlyMap<string, MetricObjectWithValues<MetricValue<string>>>,
  ) {}

  static async of(registry: Registry): Promise<MetricsSnapshot> {
    const metrics = await registry.getMetricsAsJSON();
    return new MetricsSnapshot(new Map(metrics.map((metric) => [metric.name, metric])));
  }

  help(name: string): string | undefined {
    return this.byName.get(name)?.help;
  }

  /** The sample of `name` (or of its `_count` series, for a histogram) with exactly `labels`. */
  private read(name: string, labels: Record<string, string>, series?: string): number {
    const metric = this.byName.get(name);
    if (!metric) throw new Error(`no metric ${name}`);
    const wanted = Object.entries(labels);
    const sample = metric.values.find(
      (value) =>
        (series === undefined || (value as { metricName?: string }).metricName === series) &&
        Object.keys(value.labels).length === wanted.length &&
        wanted.every(([key, label]) => value.labels[key] === label),
    );
    return sample?.value ?? 0;
  }

  value(name: string, labels: Record<string, string> = {}): number {
    return this.read(name, labels);
  }

  /** How many observations a histogram holds for `labels`. */
  count(name: string, labels: Record<string, string> = {}): number {
    return this.read(name, labels, `${name}_count`);
  }
}

/** `promtool check metrics` on the text: its exit status and what it printed (lint findings). */
export function promtoolCheck(text: string): { status: number | null; output: string } {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (run.error) {
    throw new Error(
      `promtool could not run (is Debian's prometheus installed?): ${run.error.message}`,
    );
  }
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

/**
 * Expositions a file's tests scrape, linted by promtool in one test of their own declared after
 * them, so that where promtool is missing only that test is skipped (test/support/system-tools.ts).
 */
export function promtoolLints(): {
  add(what: string, text: string): void;
  declareLintTest(expected: number): void;
} {
  const texts: Array<{ what: string; text: string }> = [];
  return {
    add: (what, text) => void texts.push({ what, text }),
    declareLintTest: (expected) =>
      itNeeding('promtool')(
        `the ${expected} expositions scraped above lint clean with promtool`,
        () => {
          expect(texts.map(({ what }) => what)).toHaveLength(expected);
          for (const { what, text } of texts) {
            expect({ what, ...promtoolCheck(text) }).toEqual({ what, status: 0, output: '' });
          }
        },
      ),
  };
}
