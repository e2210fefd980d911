import type {
  DayVisits,
  VisitBatch,
  VisitDay,
  VisitStore,
  VisitTotals,
} from '../../ports/visit-store';

/** Visits in this process's memory: a Map per link of its days, and the batches applied. */
export class MemoryVisitStore implements VisitStore {
  private readonly days = new Map<number, Map<VisitDay, DayVisits>>();
  private readonly totalsByLink = new Map<number, VisitTotals>();
  /** The last seq applied per process: batches of one process come in order. */
  private readonly applied = new Map<string, number>();

  add(batch: VisitBatch): Promise<'added' | 'repeated'> {
    if ((this.applied.get(batch.process) ?? 0) >= batch.seq) return Promise.resolve('repeated');
    this.applied.set(batch.process, batch.seq);
    for (const { linkId, day, humans, bots } of batch.counts) {
      let days = this.days.get(linkId);
      if (!days) this.days.set(linkId, (days = new Map<VisitDay, DayVisits>()));
      const counted = days.get(day) ?? { linkId, day, humans: 0, bots: 0 };
      days.set(day, { ...counted, humans: counted.humans + humans, bots: counted.bots + bots });
      const total = this.totalsByLink.get(linkId) ?? { humans: 0, bots: 0 };
      this.totalsByLink.set(linkId, { humans: total.humans + humans, bots: total.bots + bots });
    }
    return Promise.resolve('added');
  }

  read(linkId: number, fromDay: VisitDay, toDay: VisitDay): Promise<DayVisits[]> {
    const days = [...(this.days.get(linkId)?.values() ?? [])]
      .filter(({ day }) => day >= fromDay && day <= toDay)
      .sort((a, b) => a.day - b.day);
    return Promise.resolve(days);
  }

  totals(linkIds: readonly number[]): Promise<Map<number, VisitTotals>> {
    return Promise.resolve(
      new Map(linkIds.map((id) => [id, this.totalsByLink.get(id) ?? { humans: 0, bots: 0 }])),
    );
  }
}
