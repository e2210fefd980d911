/** The LMDB adapter: the durable embedded store (identities, links, ids) in a data directory. */
export {
  createLmdbStore,
  isLmdbStore,
  LMDB_STORE_KIND,
  LMDB_DATA_FILE,
  type LmdbStore,
  type LmdbStoreOptions,
} from './lmdb-store';
export { DataDirError, DATA_DIR_MODE } from './data-dir';
export { FORMAT_VERSION } from './format-version';
export { DATABASES, META_KEYS } from './databases';
