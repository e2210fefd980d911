import { visitDayOf } from '../ports/visit-store';
import type { Clock } from '../ports/clock';
import type { LinkRecord } from '../ports/link-store';
import type { Store } from '../ports/store';
import { DEFAULT_VISIT_DAYS, MAX_VISIT_DAYS, readLinkVisits } from '../links/visit-days';
import { usageError, type Options } from './admin-command-line';
import type { PrintLine } from './link-commands';
import { findNamedLink, readLinkOption } from './link-reference-options';
import { visitChartLines } from './visit-chart';

/** Where `link visits` prints: a terminal gets the chart, anything else plain lines. */
interface VisitsOutput {
  print: PrintLine;
  /** process.stdout.isTTY: a terminal. */
  isTTY: boolean;
  /** The terminal's width (process.stdout.columns). */
  columns: number | undefined;
}

/** `--days N`: 1 to 400; absent: 30. */
function readDaysOption(options: Options): number {
  const value = options.days;
  if (value === undefined) return DEFAULT_VISIT_DAYS;
  const days = typeof value === 'string' && /^[1-9]\d{0,2}$/.test(value) ? Number(value) : NaN;
  if (!(days <= MAX_VISIT_DAYS)) {
    throw usageError(`--days must be a whole number from 1 to ${MAX_VISIT_DAYS}`);
  }
  return days;
}

const shortUrlOf = (link: LinkRecord) => `${link.scheme}://${link.domain}/${link.alias}`;

/**
 * `link visits`: the link's totals as the store holds them, then its last `--days` UTC days,
 * oldest first: drawn as bars on a terminal (visit-chart.ts), else one plain line per day,
 * `YYYY-MM-DD humans bots`. The command line is read here, before the store opens.
 */
export function linkVisitsCommand(
  options: Options,
): (store: Store, clock: Clock, output: VisitsOutput) => Promise<void> {
  const named = readLinkOption(options);
  const days = readDaysOption(options);
  return async (store, clock, { print, isTTY, columns }) => {
    const link = await findNamedLink(store.links, named);
    const today = visitDayOf(clock.now());
    const visits = await readLinkVisits(store.visits, link.id, today, days);
    const { totals } = visits;
    await print(
      `link ${link.id} (${shortUrlOf(link)}): ${totals.visits} visits, ${totals.humans} humans, ${totals.bots} bots`,
    );
    const lines = isTTY
      ? visitChartLines(visits.days, columns ?? 80)
      : visits.days.map((day) => `${day.day} ${day.humans} ${day.bots}`);
    for (const line of lines) await print(line);
  };
}
