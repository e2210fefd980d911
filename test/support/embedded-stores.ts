import { join } from 'node:path';
import { createMemoryStore, type Store } from '../../core';
import { createLmdbStore } from '../../core/adapters/lmdb';
import { tempDirs } from './temp-dirs';

/** A store kind's name and a way to open a new, empty store of it. */
export type StoreOpener = [name: string, open: () => Promise<Store>];

/**
 * The embedded stores, for a `describe.each`: memory, and LMDB in a new temporary folder each
 * time. Call it at the top level of a test file: every store opened is closed after its test, and
 * the folders are removed after the file.
 */
export function embeddedStores(prefix: string): StoreOpener[] {
  const dirs = tempDirs(prefix);
  const opened: Store[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });
  afterAll(() => dirs.removeAll());
  const tracked = async (open: Promise<Store>) => {
    const store = await open;
    opened.push(store);
    return store;
  };
  return [
    ['memory', () => tracked(Promise.resolve(createMemoryStore()))],
    [
      'LMDB',
      () => tracked(dirs.make().then((dir) => createLmdbStore({ dataDir: join(dir, 'data') }))),
    ],
  ];
}
