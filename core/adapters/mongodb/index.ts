/** `shortlink/mongodb`: the MongoDB store (identities, links, ids) and the shared rate limiters. */
export {
  createMongoStore,
  mongoStoreOn,
  isMongoStore,
  connectMongoClient,
  MONGO_STORE_KIND,
  type MongoStore,
  type MongoStoreOptions,
} from './mongo-store';
export { createMongoRateLimiters, type MongoRateLimiters } from './mongo-rate-limiters';
export { MONGO_DEFAULTS, DEFAULT_DATABASE } from './connection-options';
export { INDEXES } from './indexes';
export { COLLECTIONS } from './documents';
