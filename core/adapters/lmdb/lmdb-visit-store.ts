import type {
  DayVisits,
  VisitBatch,
  VisitDay,
  VisitStore,
  VisitTotals,
} from '../../ports/visit-store';
import type { LmdbDatabases, StoredVisits } from './databases';
import { onLmdb, readLmdb } from './lmdb-errors';

function plus(stored: StoredVisits | undefined, humans: number, bots: number): StoredVisits {
  return [(stored?.[0] ?? 0) + humans, (stored?.[1] ?? 0) + bots];
}

/**
 * Visits on LMDB: one write transaction per batch adds its days, the links' totals and the
 * batch's seq for its process, so a batch is applied whole or not at all, and once. Every process
 * on the DATA_DIR (WORKERS) sends its own batches: LMDB takes one writer at a time across them.
 */
export class LmdbVisitStore implements VisitStore {
  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly path: string,
  ) {}

  add(batch: VisitBatch): Promise<'added' | 'repeated'> {
    const { linkVisits, linkVisitTotals, visitBatches } = this.dbs;
    return onLmdb(this.dbs, this.path, 'visit counting', () =>
      linkVisits.transaction(() => {
        if ((visitBatches.get(batch.process) ?? 0) >= batch.seq) return 'repeated' as const;
        // Everything read before the first write: lmdb-js commits what a callback wrote before
        // it threw, and a batch must apply whole.
        const writes = batch.counts.map(({ linkId, day, humans, bots }) => ({
          linkId,
          day,
          dayValue: plus(linkVisits.get([linkId, day]), humans, bots),
          humans,
          bots,
        }));
        const totals = new Map<number, StoredVisits>();
        for (const { linkId, humans, bots } of writes) {
          totals.set(linkId, plus(totals.get(linkId) ?? linkVisitTotals.get(linkId), humans, bots));
        }
        void visitBatches.put(batch.process, batch.seq);
        for (const write of writes) void linkVisits.put([write.linkId, write.day], write.dayValue);
        for (const [linkId, total] of totals) void linkVisitTotals.put(linkId, total);
        return 'added' as const;
      }),
    );
  }

  read(linkId: number, fromDay: VisitDay, toDay: VisitDay): Promise<DayVisits[]> {
    return readLmdb(this.dbs, this.path, 'visit reading', () => [
      ...this.dbs.linkVisits
        .getRange({ start: [linkId, fromDay], end: [linkId, toDay + 1] })
        .map(({ key, value }) => ({ linkId, day: key[1], humans: value[0], bots: value[1] })),
    ]);
  }

  totals(linkIds: readonly number[]): Promise<Map<number, VisitTotals>> {
    return readLmdb(this.dbs, this.path, 'visit totals', () => {
      const totals = new Map<number, VisitTotals>();
      for (const id of linkIds) {
        const stored = this.dbs.linkVisitTotals.get(id);
        totals.set(id, { humans: stored?.[0] ?? 0, bots: stored?.[1] ?? 0 });
      }
      return totals;
    });
  }
}
