import { randomUUID } from 'node:crypto';
import { messageOf } from '../errors/message-of';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { DayVisits, VisitBatch, VisitStore } from '../ports/visit-store';
import { visitDayOf } from '../ports/visit-store';

/** How often counts are sent to the store unless VISITS_FLUSH_SECONDS says otherwise. */
export const DEFAULT_VISITS_FLUSH_SECONDS = 1;
/** Link-days held unsent at most unless VISITS_PENDING_MAX says otherwise. */
export const DEFAULT_VISITS_PENDING_MAX = 100_000;

interface VisitCounterOptions {
  /** Where counts go; absent: a store that keeps no visits, and nothing is gathered. */
  store: VisitStore | undefined;
  clock: Clock;
  flushSeconds: number;
  /** Link-days held in memory at most, gathered and unsent together; past it visits are dropped. */
  pendingMax: number;
  logger: Logger;
  /** Told of visits dropped (past pendingMax, or unsent at close): the metric counts them. */
  onDropped?: ((visits: number) => void) | undefined;
}

/**
 * Counts redirects in memory, by link and UTC day, humans and bots apart, and sends them to the
 * visit store at most every flushSeconds, in one batch: a follow only adds to a Map, so it makes
 * no store write of its own. Each batch carries this process's random id and a seq, and the store
 * applies a (process, seq) once, so a batch sent again after a failure whose outcome is unknown
 * adds nothing twice. A batch that failed is sent again, before anything newer, at the next
 * tick; meanwhile counts wait in memory, up to pendingMax link-days. A crash loses what was not
 * yet sent: at most one interval's counts (more while the store is down).
 */
export class VisitCounter {
  private readonly process = randomUUID();
  private seq = 0;
  private pending = new Map<string, DayVisits>();
  /** Batches made but not yet known to be applied, oldest first. */
  private readonly unsent: VisitBatch[] = [];
  private unsentDays = 0;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: VisitCounterOptions) {}

  /** Starts the periodic flush; the timer keeps no process alive. */
  start(): void {
    if (!this.options.store || this.timer || this.closed) return;
    this.timer = setInterval(() => void this.flush(), this.options.flushSeconds * 1000);
    this.timer.unref();
  }

  /** Counts one redirect of the link now: in memory only, never a store call. */
  record(linkId: number, bot: boolean): void {
    if (!this.options.store || this.closed) return;
    const day = visitDayOf(this.options.clock.now());
    const key = `${linkId}/${day}`;
    let counted = this.pending.get(key);
    if (!counted) {
      if (this.pending.size + this.unsentDays >= this.options.pendingMax) {
        this.options.onDropped?.(1);
        return;
      }
      counted = { linkId, day, humans: 0, bots: 0 };
      this.pending.set(key, counted);
    }
    if (bot) counted.bots += 1;
    else counted.humans += 1;
  }

  /** Link-days held in memory (gathered and unsent). */
  get held(): number {
    return this.pending.size + this.unsentDays;
  }

  /**
   * Sends what was gathered, after any batch that failed before; one flush at a time (a tick that
   * comes while one runs joins it). Never rejects: a failure is logged and retried later.
   */
  flush(): Promise<void> {
    this.running ??= this.sendAll().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Stops the timer and sends everything held, once; what still fails is dropped and counted. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
    await this.flush();
    const lost = this.unsent.reduce((sum, batch) => sum + visitsIn(batch.counts), 0);
    if (lost > 0) {
      this.options.logger.error({ visits: lost }, 'visits not stored at stop: dropped');
      this.options.onDropped?.(lost);
    }
  }

  private async sendAll(): Promise<void> {
    const store = this.options.store;
    if (!store) return;
    if (this.pending.size > 0) {
      const counts = [...this.pending.values()];
      this.pending = new Map();
      this.seq += 1;
      this.unsent.push({ process: this.process, seq: this.seq, counts });
      this.unsentDays += counts.length;
    }
    for (let batch = this.unsent[0]; batch; batch = this.unsent[0]) {
      try {
        await store.add(batch);
      } catch (error) {
        this.options.logger.warn(
          { err: messageOf(error), batch: batch.seq, held: this.held },
          'visits not stored yet: kept to retry',
        );
        return;
      }
      this.unsent.shift();
      this.unsentDays -= batch.counts.length;
    }
  }
}

function visitsIn(counts: readonly DayVisits[]): number {
  return counts.reduce((sum, { humans, bots }) => sum + humans + bots, 0);
}
