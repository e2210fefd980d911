import { join } from 'node:path';
import { createLmdbStore, isLmdbStore } from '../../core/adapters/lmdb';
import { tempDirs } from '../support/temp-dirs';
import { describeStoreContract } from './store-contract';

const dirs = tempDirs('lmdb-contract');

afterAll(() => dirs.removeAll());

describe('storage contract: LMDB store', () => {
  // Each store gets a directory of its own: "fresh" means empty, as for the other adapters.
  describeStoreContract(() => ({
    fresh: async () => createLmdbStore({ dataDir: join(await dirs.make(), 'data') }),
    // A restart: the same directory opened again once the store is closed.
    reopen: async (store) => {
      if (!isLmdbStore(store)) throw new Error('not an LMDB store');
      await store.close();
      return createLmdbStore({ dataDir: store.path });
    },
  }));
});
