import type { RedisTopology } from './redis-topology';

/**
 * Answers that mean REDIS_URL does not describe the deployment: MOVED and ASK come from a Redis
 * Cluster node asked as if it were a single server (a Cluster client follows them itself), and
 * READONLY from a replica asked as if it were the master. Under Sentinel, READONLY is instead the
 * short window after a failover while the client moves to the new master: an outage, not a
 * misconfiguration.
 */
const MISMATCH = /^(MOVED|ASK|READONLY)\b/;

function messages(error: unknown): string[] {
  if (typeof error !== 'object' || error === null) return [];
  const own = 'message' in error ? [String(error.message)] : [];
  // A MULTI whose commands were refused fails as EXECABORT; the refusals ride along.
  const previous = 'previousErrors' in error ? error.previousErrors : undefined;
  return Array.isArray(previous) ? [...own, ...previous.flatMap(messages)] : own;
}

export function isTopologyMismatch(error: unknown, topology: RedisTopology['kind']): boolean {
  return messages(error).some((message) => {
    const match = MISMATCH.exec(message);
    if (!match) return false;
    return !(match[1] === 'READONLY' && topology === 'sentinel');
  });
}

/**
 * Answers refusing what REDIS_URL asks of the connection itself: its credentials (NOAUTH when it
 * gives no password to a Redis that wants one, WRONGPASS, or older servers' "invalid password"),
 * or a database the server does not have. A refused password never lets the connection become
 * ready, and after a refused SELECT ioredis goes on, ready, in database 0: either would count per
 * process, or in another database, for good.
 */
const CREDENTIALS_REFUSED = /^(NOAUTH|WRONGPASS)\b|^ERR invalid password/;
const DATABASE_REFUSED = /^ERR (DB index is out of range|invalid DB index)/;

export function isConnectionRefusal(error: unknown): boolean {
  return messages(error).some(
    (message) => CREDENTIALS_REFUSED.test(message) || DATABASE_REFUSED.test(message),
  );
}

/** The log line's advice, by what the answer said. */
export function mismatchAdvice(error: unknown): string {
  const text = messages(error).join(' ');
  if (CREDENTIALS_REFUSED.test(text)) {
    return 'Redis does not accept the user and password of REDIS_URL: give the ones it expects';
  }
  if (DATABASE_REFUSED.test(text)) {
    return 'Redis does not have the database named in REDIS_URL (its path): name one it has';
  }
  if (/\b(MOVED|ASK)\b/.test(text)) {
    return 'REDIS_URL names one node of a Redis Cluster: list two or more of its nodes, comma-separated';
  }
  return 'REDIS_URL names a read-only replica: name the master, or list the sentinels and set REDIS_SENTINEL_NAME';
}
