/**
 * A UTC day as the whole days since 1970-01-01 (0 is that day): what visits are counted by. A
 * number, so a range of days is a range of keys in every store.
 */
export type VisitDay = number;

/** Redirects of one link on one UTC day: by people, and by likely bots (never mixed). */
export interface DayVisits {
  linkId: number;
  day: VisitDay;
  humans: number;
  bots: number;
}

/** A link's redirects since it was made, as the visit store keeps them. */
export interface VisitTotals {
  humans: number;
  bots: number;
}

/**
 * Counts one process gathered, sent in one write. `process` (random per process start) and
 * `seq` (1, 2, ... in the order sent) name the batch: a store applies each name once, so a batch
 * sent again after an answer that never came adds nothing the second time.
 */
export interface VisitBatch {
  process: string;
  seq: number;
  counts: DayVisits[];
}

/** Where redirects are counted, per link and UTC day, apart from the links themselves. */
export interface VisitStore {
  /**
   * Adds every count of the batch to its link's day and to its link's totals, in one write, once:
   * a batch whose (process, seq) the store already applied is ignored ('repeated').
   */
  add(batch: VisitBatch): Promise<'added' | 'repeated'>;
  /** The days of one link from `fromDay` to `toDay` (both included) that have counts, in order. */
  read(linkId: number, fromDay: VisitDay, toDay: VisitDay): Promise<DayVisits[]>;
  /** The totals of each link asked (zeros for one never visited). */
  totals(linkIds: readonly number[]): Promise<Map<number, VisitTotals>>;
}

const DAY_MS = 86_400_000;

/** The UTC day of an instant. */
export function visitDayOf(at: Date): VisitDay {
  return Math.floor(at.getTime() / DAY_MS);
}

/** A day as ISO 8601 (YYYY-MM-DD), as the APIs show it. */
export function visitDayText(day: VisitDay): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}
