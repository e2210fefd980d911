import type { Db } from 'mongodb';
import { databaseNameFromUri } from '../adapters/mongodb/connection-options';
import { ALL_INDEXES, describeIndex, ensureIndexes } from '../adapters/mongodb/indexes';
import { connectMongoClient } from '../adapters/mongodb/mongo-store';
import { ProvisioningError } from '../provisioning/provisioning-error';
import type { Config } from '../runtime/config';

/**
 * `admin db migrate`: creates the MongoDB indexes the server and its rate limiters use that the
 * database lacks (listIndexes first, so a prepared database is not written), for deployments that
 * start with MONGODB_CREATE_INDEXES=0 and a user without the createIndex privilege.
 */
export async function runDbMigrate(config: Config): Promise<string[]> {
  if (!config.MONGODB_URI) {
    throw new ProvisioningError(
      'db migrate prepares MongoDB (MONGODB_URI is not set); the LMDB store in DATA_DIR is brought to this version by the server itself at start',
    );
  }
  const client = await connectMongoClient(config.MONGODB_URI);
  try {
    return await migrateIndexes(client.db(databaseNameFromUri(config.MONGODB_URI)));
  } finally {
    await client.close();
  }
}

/** Creates the missing indexes of `db`; the lines that say which. */
export async function migrateIndexes(db: Db): Promise<string[]> {
  const created = await ensureIndexes(db, ALL_INDEXES);
  const where = `MongoDB database ${db.databaseName}`;
  if (created.length === 0) {
    return [`${where}: all ${ALL_INDEXES.length} indexes present; nothing was created`];
  }
  return [
    ...created.map((index) => `created index ${describeIndex(index)}`),
    `${where}: ${created.length} of ${ALL_INDEXES.length} indexes created, the others were present`,
  ];
}
