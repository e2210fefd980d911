import type { Db, MongoClient } from 'mongodb';
import { mongoStoreOn } from '../../core/adapters/mongodb';

/**
 * A link, the id counter and an idempotency record must survive a failover whatever
 * MONGODB_URI says (`?w=1` sets the client's default): their collections carry their own write
 * concern, which the driver prefers to the client's.
 */
describe('write concern pinned on the collections that hold links, ids and idempotency', () => {
  it('opens links, counters and idempotency_keys with w: majority', () => {
    const opened = new Map<string, unknown>();
    const db = {
      collection: (name: string, options?: unknown) => {
        if (!opened.has(name) || options !== undefined) opened.set(name, options);
        return {};
      },
    } as unknown as Db;
    mongoStoreOn({} as MongoClient, db, false);
    for (const name of ['links', 'counters', 'idempotency_keys']) {
      expect({ name, options: opened.get(name) }).toEqual({
        name,
        options: { writeConcern: { w: 'majority' } },
      });
    }
  });
});
