import type { DayVisitsView } from '../links/visit-days';

/** What a bar of people's visits and one of likely bots' are drawn with. */
export const HUMAN_MARK = '█';
export const BOT_MARK = '░';

/** The narrowest and widest a bar may be, whatever the terminal's width. */
const MIN_BAR = 10;
const MAX_BAR = 60;

/**
 * The marks of a day's bar, people's and likely bots': the whole bar is its visits scaled to
 * `width` marks for `most`, people's part rounded and bots' the rest, so the two add up to the
 * whole; a kind with any visit keeps at least one mark.
 */
function marksOf(day: DayVisitsView, most: number, width: number): [number, number] {
  if (day.visits === 0) return [0, 0];
  const kinds = (day.humans > 0 ? 1 : 0) + (day.bots > 0 ? 1 : 0);
  const whole = Math.max(kinds, Math.round((day.visits * width) / most));
  let humans = Math.round((day.humans * width) / most);
  if (day.bots > 0) humans = Math.min(humans, whole - 1);
  if (day.humans > 0) humans = Math.max(humans, 1);
  return [humans, whole - humans];
}

/**
 * A link's days drawn for a terminal `columns` wide: a legend, then one line per day, oldest
 * first: the day, a bar of people's visits (█) followed by one of likely bots' (░), scaled so the
 * busiest day fills the bar, then both numbers. A day with any visit shows at least one mark of
 * its kind; no mark means none.
 */
export function visitChartLines(days: readonly DayVisitsView[], columns: number): string[] {
  const most = Math.max(0, ...days.map((day) => day.visits));
  const humansWidth = Math.max(6, ...days.map((day) => String(day.humans).length));
  const botsWidth = Math.max(4, ...days.map((day) => String(day.bots).length));
  // "YYYY-MM-DD " + bar + " " + humans + " " + bots
  const room = columns - 11 - 1 - humansWidth - 1 - botsWidth;
  const width = Math.min(MAX_BAR, Math.max(MIN_BAR, room));
  const first = days[0]?.day ?? '';
  const last = days.at(-1)?.day ?? '';
  const legend =
    most === 0
      ? `${first} to ${last} (UTC): no visits`
      : `${first} to ${last} (UTC): ${HUMAN_MARK} humans ${BOT_MARK} bots, the longest bar ${most} visits`;
  const header = `${' '.repeat(11)}${''.padEnd(width)} ${'humans'.padStart(humansWidth)} ${'bots'.padStart(botsWidth)}`;
  return [
    legend,
    header,
    ...days.map((day) => {
      const [humans, bots] = marksOf(day, most, width);
      const bar = (HUMAN_MARK.repeat(humans) + BOT_MARK.repeat(bots)).padEnd(width);
      return `${day.day} ${bar} ${String(day.humans).padStart(humansWidth)} ${String(day.bots).padStart(botsWidth)}`;
    }),
  ];
}
