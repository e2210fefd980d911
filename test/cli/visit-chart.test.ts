import { BOT_MARK, HUMAN_MARK, visitChartLines } from '../../core/cli/visit-chart';
import type { DayVisitsView } from '../../core/links/visit-days';

const day = (date: string, humans: number, bots: number): DayVisitsView => ({
  day: date,
  visits: humans + bots,
  humans,
  bots,
});

/** The bar part of a day's line: after the date, before " humans" (7) and " bots" (5). */
const barOf = (line: string) => line.slice(11, -12);

describe('link visits: the chart drawn on a terminal', () => {
  it('draws one line per day, people (█) then likely bots (░), the busiest day filling the bar', () => {
    const lines = visitChartLines(
      [day('2027-03-08', 10, 7), day('2027-03-09', 0, 0), day('2027-03-10', 1, 0)],
      40,
    );
    // 40 columns: the date (11), the bar (17), " humans" (7) and " bots" (5).
    expect(lines).toEqual([
      '2027-03-08 to 2027-03-10 (UTC): █ humans ░ bots, the longest bar 17 visits',
      `${' '.repeat(28)} humans bots`,
      `2027-03-08 ${'█'.repeat(10)}${'░'.repeat(7)}     10    7`,
      `2027-03-09 ${' '.repeat(17)}      0    0`,
      `2027-03-10 █${' '.repeat(16)}      1    0`,
    ]);
    for (const line of lines.slice(1)) expect(line.length).toBe(40);
  });

  it('scales to the busiest day; a day with any visit keeps one mark of each kind it has', () => {
    const lines = visitChartLines(
      [day('2027-01-01', 1000, 1), day('2027-01-02', 500, 500), day('2027-01-03', 1, 0)],
      80,
    );
    const bars = lines.slice(2).map(barOf);
    // 80 columns leave 80 - 11 - 7 - 5 = 57 marks for the busiest day (1001 visits).
    expect(bars.map((bar) => bar.length)).toEqual([57, 57, 57]);
    expect(bars[0]).toBe(`${HUMAN_MARK.repeat(56)}${BOT_MARK}`);
    // 1000 of 1001 is 57 marks, people's 500 are 28.47, rounded to 28; the bots have the rest.
    expect(bars[1]).toBe(`${HUMAN_MARK.repeat(28)}${BOT_MARK.repeat(29)}`);
    expect(bars[2]).toBe(`${HUMAN_MARK}${' '.repeat(56)}`);
    expect(lines[0]).toContain('the longest bar 1001 visits');
  });

  it('keeps the bar between 10 and 60 marks, and widens the number columns for big numbers', () => {
    const narrow = visitChartLines([day('2027-01-01', 3, 1)], 20);
    expect(barOf(narrow[2] ?? '')).toBe(`${'█'.repeat(8)}${'░'.repeat(2)}`);
    const wide = visitChartLines([day('2027-01-01', 1, 1)], 300);
    expect(barOf(wide[2] ?? '')).toHaveLength(60);
    const big = visitChartLines([day('2027-01-01', 12_345_678, 0)], 80);
    expect(big[2]).toBe(`2027-01-01 ${'█'.repeat(55)} 12345678    0`);
  });

  it('says so when the days hold no visit, drawing no mark', () => {
    const lines = visitChartLines([day('2027-01-01', 0, 0), day('2027-01-02', 0, 0)], 80);
    expect(lines[0]).toBe('2027-01-01 to 2027-01-02 (UTC): no visits');
    expect(lines.slice(2).join('')).not.toMatch(/[█░]/);
  });
});
