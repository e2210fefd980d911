import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection } from 'mongodb';
import type {
  DayVisits,
  VisitBatch,
  VisitDay,
  VisitStore,
  VisitTotals,
} from '../../ports/visit-store';
import { onMongo } from './backend-errors';
import type { VisitDocument } from './documents';

/** How long a batch's mark is kept: far longer than any batch is sent again (the next ticks). */
export const VISIT_BATCH_MARK_SECONDS = 86_400;

/**
 * Visits on MongoDB, in one collection of three kinds of documents: a link's day (`_id: {link,
 * day}`), a link's totals (`_id: {link}`) and a batch's mark (`_id: {process, seq}`, removed a
 * day later by a TTL index). One ordered bulkWrite per batch inserts the mark first, then `$inc`s
 * each day and total with upserts: commutative, so every process (WORKERS, every host) sends its
 * own. A batch sent again finds its mark (a duplicate key on the first write), and ordered writes
 * stop there: it adds nothing twice. The trade-off: a bulkWrite cut off after its mark (the
 * connection lost mid-way) loses the rest of that batch rather than risk counting it twice.
 */
export class MongoVisitStore implements VisitStore {
  constructor(private readonly visits: Collection<VisitDocument>) {}

  async add(batch: VisitBatch): Promise<'added' | 'repeated'> {
    const operations: AnyBulkWriteOperation<VisitDocument>[] = [
      {
        insertOne: {
          document: { _id: { process: batch.process, seq: batch.seq }, markedAt: new Date() },
        },
      },
    ];
    const totals = new Map<number, VisitTotals>();
    for (const { linkId, day, humans, bots } of batch.counts) {
      operations.push(increment({ link: linkId, day }, humans, bots));
      const total = totals.get(linkId) ?? { humans: 0, bots: 0 };
      totals.set(linkId, { humans: total.humans + humans, bots: total.bots + bots });
    }
    for (const [link, { humans, bots }] of totals) {
      operations.push(increment({ link }, humans, bots));
    }
    try {
      await onMongo('visit counting', () => this.visits.bulkWrite(operations, { ordered: true }));
      return 'added';
    } catch (error) {
      if (isMarkTaken(error)) return 'repeated';
      throw error;
    }
  }

  async read(linkId: number, fromDay: VisitDay, toDay: VisitDay): Promise<DayVisits[]> {
    // Embedded documents compare field by field, in order: {link, day} keys of one link sort by
    // day, so the range is one scan of the _id index (the totals' {link} sorts before them all).
    const found = await onMongo('visit reading', () =>
      this.visits
        .find({ _id: { $gte: { link: linkId, day: fromDay }, $lte: { link: linkId, day: toDay } } })
        .sort({ _id: 1 })
        .toArray(),
    );
    return found.flatMap((document) =>
      'day' in document._id
        ? [
            {
              linkId,
              day: document._id.day,
              humans: document.humans ?? 0,
              bots: document.bots ?? 0,
            },
          ]
        : [],
    );
  }

  async totals(linkIds: readonly number[]): Promise<Map<number, VisitTotals>> {
    const found = await onMongo('visit totals', () =>
      this.visits.find({ _id: { $in: linkIds.map((link) => ({ link })) } }).toArray(),
    );
    const totals = new Map<number, VisitTotals>(linkIds.map((id) => [id, { humans: 0, bots: 0 }]));
    for (const document of found) {
      if ('link' in document._id) {
        totals.set(document._id.link, { humans: document.humans ?? 0, bots: document.bots ?? 0 });
      }
    }
    return totals;
  }
}

function increment(
  _id: { link: number; day?: number },
  humans: number,
  bots: number,
): AnyBulkWriteOperation<VisitDocument> {
  return {
    updateOne: { filter: { _id }, update: { $inc: { humans, bots } }, upsert: true },
  };
}

/** The batch's mark, the bulkWrite's first operation, was already there: applied before. */
function isMarkTaken(error: unknown): boolean {
  if (!(error instanceof MongoBulkWriteError)) return false;
  const written: unknown = error.writeErrors;
  const errors = (Array.isArray(written) ? written : [written]) as Array<{
    index?: number;
    code?: number;
  }>;
  return errors.some((one) => one.index === 0 && one.code === 11000);
}
