/** `shortlink/mongodb`: the MongoDB store (identities, links, ids) and the shared rate limiters. */
export {
  createMongoStore,
  mongoStoreOn,
  prepareDatabase,
  isMongoStore,
  connectMongoClient,
  MONGO_STORE_KIND,
  type MongoStore,
  type MongoStoreOptions,
  type MongoStoreSettings,
} from './mongo-store';
export { DEFAULT_ID_BLOCK_SIZE, MAX_ID_BLOCK_SIZE } from './block-id-allocator';
export { createMongoRateLimiters, type MongoRateLimiters } from './mongo-rate-limiters';
export { MONGO_DEFAULTS, DEFAULT_DATABASE } from './connection-options';
export { INDEXES } from './indexes';
export { COLLECTIONS } from './documents';
