import { messageOf } from '../../errors/message-of';
import { systemErrorCode } from '../../errors/system-error-code';
import {
  MongoClientClosedError,
  MongoError,
  MongoErrorLabel,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';
import { BackendUnavailableError } from '../../errors/shortlink-error';

/** Driver errors that mean "no usable server right now", as opposed to a bug or a bad request. */
const UNAVAILABLE_CLASSES = [
  MongoNetworkError, // includes MongoNetworkTimeoutError (socketTimeoutMS)
  MongoServerSelectionError, // serverSelectionTimeoutMS elapsed
  MongoTopologyClosedError,
  MongoNotConnectedError,
  MongoClientClosedError,
  MongoServerClosedError,
  MongoOperationTimeoutError,
];

/**
 * Server codes that say "not now" rather than "not this": a replica set in transition (no
 * primary, stepping down, shutting down), a time limit passed (50 MaxTimeMSExpired, 262
 * ExceededTimeLimit, 64 WriteConcernFailed: the majority did not acknowledge in time), an
 * operation interrupted (11600, 11601, 11602), or a majority that cannot acknowledge at all for
 * now (100 UnsatisfiableWriteConcern: too few data-bearing members). The driver retries some of
 * these once; when they still surface, the database is unavailable for now (503, code 23).
 */
const TRANSIENT_SERVER_CODES = new Set([
  6, 7, 50, 64, 89, 91, 100, 134, 189, 262, 9001, 10107, 11600, 11601, 11602, 13435, 13436,
]);

/**
 * The server's code of an error: a write concern error's own when the error carries it only in
 * its result (the driver copies it to `code`, unless the reply had a code of its own).
 */
function serverCodes(error: MongoServerError): number[] {
  const codes = [Number(error.code)];
  if (error instanceof MongoWriteConcernError) {
    const concern: unknown = error.result['writeConcernError'];
    if (typeof concern === 'object' && concern !== null && 'code' in concern) {
      codes.push(Number(concern.code));
    }
  }
  return codes;
}

/** Node's own network failures, e.g. the DNS lookup of a `mongodb+srv://` cluster name. */
const NETWORK_SYSTEM_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

export function isBackendUnavailable(error: unknown): boolean {
  if (UNAVAILABLE_CLASSES.some((kind) => error instanceof kind)) return true;
  const code = systemErrorCode(error);
  if (code !== undefined && NETWORK_SYSTEM_CODES.has(code)) return true;
  if (
    error instanceof MongoServerError &&
    serverCodes(error).some((code) => TRANSIENT_SERVER_CODES.has(code))
  ) {
    return true;
  }
  return error instanceof MongoError && error.hasErrorLabel(MongoErrorLabel.ResetPool);
}

/** BackendUnavailableError for an unavailable database; anything else unchanged (a real bug). */
export function asBackendError(error: unknown, operation: string): unknown {
  if (!isBackendUnavailable(error)) return error;
  const reason = messageOf(error);
  return new BackendUnavailableError(`MongoDB unavailable during ${operation}: ${reason}`, {
    cause: error,
  });
}

/** Runs one database operation, reporting an unavailable database as BackendUnavailableError. */
export async function onMongo<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw asBackendError(error, operation);
  }
}

/** True for a duplicate-key error raised by the unique index `index`. */
export function isDuplicateKeyOn(
  error: unknown,
  index: { name: string; key: Record<string, unknown> },
): boolean {
  if (!(error instanceof MongoServerError) || error.code !== 11000) return false;
  // Servers name the index in the message ("E11000 ... index: <name> dup key: ...") and, since
  // 4.2 or so, also return the index's key pattern; either identifies it.
  if (error.message.includes(`index: ${index.name} `)) return true;
  const pattern: unknown = error.keyPattern;
  if (typeof pattern !== 'object' || pattern === null) return false;
  const fields = Object.keys(pattern).sort().join(',');
  return fields === Object.keys(index.key).sort().join(',');
}

/**
 * Runs an upsert again after a duplicate-key error: two first-time upserts of one key can race
 * to insert, and the loser's second attempt finds the winner's document and updates it. (Servers
 * since 4.2 retry most such cases themselves; this covers the rest.)
 */
export async function upsertRacing<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof MongoServerError && error.code === 11000) return run();
    throw error;
  }
}
