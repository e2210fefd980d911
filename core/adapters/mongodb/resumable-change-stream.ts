import {
  MongoServerError,
  Timestamp,
  type ChangeStream,
  type ChangeStreamOptions,
  type Db,
  type Document,
  type ResumeToken,
} from 'mongodb';
import { messageOf } from '../../errors/message-of';
import { silentLogger, type Logger } from '../../ports/logger';
import type { ChangeWatch, ChangeWatchStatus } from '../../ports/store';
import { isBackendUnavailable } from './backend-errors';

/** The fields of a change event the watchers read (their pipelines project to these). */
export type WatchedEvent = {
  /** The event's resume token. */
  _id: ResumeToken;
  operationType: string;
  /** When the change was made: its oplog time (seconds in `high`), and, since 6.0, its wall time. */
  clusterTime?: Timestamp;
  wallTime?: Date;
  ns?: { db?: string; coll?: string };
  documentKey?: Record<string, unknown>;
  fullDocument?: Record<string, unknown> | null;
};

type WatchedStream = ChangeStream<Document, WatchedEvent>;

/**
 * Where a stream starts: after a change it saw or after an invalidate event (a resume), or at an
 * operation time of the server (a stream from now).
 */
type ResumePoint = Pick<ChangeStreamOptions, 'resumeAfter' | 'startAfter' | 'startAtOperationTime'>;

/**
 * The server's operation time now: a `ping`'s `operationTime` (on a replica set, the time of the
 * newest entry of its oplog; through mongos, the cluster's), else the cluster time it gossips.
 * Undefined on a standalone server, which has neither (nor change streams). Whatever this process
 * reads after the answer is at least that recent, and a stream started at that time hears every
 * change made after it.
 */
export async function serverOperationTime(db: Pick<Db, 'command'>): Promise<Timestamp | undefined> {
  const reply = await db.command({ ping: 1 });
  const clusterTime: unknown = (reply.$clusterTime as { clusterTime?: unknown } | undefined)
    ?.clusterTime;
  for (const time of [reply.operationTime, clusterTime]) {
    if (time instanceof Timestamp) return time;
  }
  return undefined;
}

/**
 * How much earlier than the `ping`'s time a stream from now starts. Through mongos, the `ping`
 * may be dated later than a write still in flight on a shard (its oplog time comes before the
 * `ping`'s cluster time, its commit after): starting a few seconds earlier hears it too, at the
 * cost of hearing again the changes of those seconds (each drops what it names, once more).
 */
export const STREAM_START_EARLIER_SECONDS = 5;

/**
 * Where a stream from now starts: the server's operation time (serverOperationTime),
 * STREAM_START_EARLIER_SECONDS earlier; undefined where the server has none (a standalone).
 */
export async function streamStartTime(db: Pick<Db, 'command'>): Promise<Timestamp | undefined> {
  const time = await serverOperationTime(db);
  if (!time) return undefined;
  return new Timestamp({ t: Math.max(0, time.high - STREAM_START_EARLIER_SECONDS), i: 0 });
}

/**
 * The server time (epoch ms) a resume token stands for. A token's `_data` is the hex of a
 * KeyString whose first value is the change's cluster time: type byte 0x82 (a Timestamp), then
 * its seconds as 4 big-endian bytes. Undefined for a token of any other shape: the watch then
 * cannot tell its position from tokens (only from its changes' times).
 */
export function resumeTokenTime(token: unknown): number | undefined {
  const data = (token as { _data?: unknown } | null | undefined)?._data;
  if (typeof data !== 'string' || !/^82[0-9a-fA-F]{8}/.test(data)) return undefined;
  return Number.parseInt(data.slice(2, 10), 16) * 1000;
}

/** When a change was made (epoch ms): its wall time, else its oplog time; undefined if neither. */
function madeAtOf(event: WatchedEvent): number | undefined {
  if (event.wallTime instanceof Date) return event.wallTime.getTime();
  if (event.clusterTime instanceof Timestamp) return event.clusterTime.high * 1000;
  return undefined;
}

/**
 * Server codes meaning "no change streams here": 40573 on a standalone server (change streams need
 * a replica set or a sharded cluster), 115 (CommandNotSupported), 20 (IllegalOperation, e.g.
 * storage engines without an oplog).
 */
const UNSUPPORTED_CODES = new Set([40573, 115, 20]);

/**
 * Server codes meaning "cannot resume from that token": 286 ChangeStreamHistoryLost (the oplog
 * no longer reaches back to it), 280 ChangeStreamFatalError (token not found), 260
 * InvalidResumeToken.
 */
const RESUME_LOST_CODES = new Set([286, 280, 260]);

function isUnsupported(error: unknown): boolean {
  return error instanceof MongoServerError && UNSUPPORTED_CODES.has(Number(error.code));
}

/**
 * 13 Unauthorized: the user may not watch (no `changeStream` and `find` actions on what is
 * watched). Reopening cannot help until an operator grants them, and each new stream from now
 * would drop the caches: so no stream at all, as on a standalone server.
 */
const UNAUTHORIZED = 13;

/** The longest wait between attempts while streams fail before their first token. */
const MAX_BACKOFF_FACTOR = 12;

interface ResumableWatchOptions {
  /** Opens a change stream starting at `from` (from now when empty). */
  open(from: ResumePoint): WatchedStream;
  /** The server's operation time now (serverOperationTime), read before a stream from now. */
  operationTime(): Promise<Timestamp | undefined>;
  /** One change event (not an invalidate). */
  onChange(event: WatchedEvent): void;
  /** Changes may have been missed: everything cached must go. */
  onMissed(): void;
  /** What is watched, for the logs ("identity", "link"). */
  name: string;
  /** What the caches rely on where change streams are unsupported, for the log line. */
  fallback: string;
  logger?: Logger;
  /** How long to wait before reopening a stream that failed (ms). */
  retryMs?: number;
}

/**
 * Follows a change stream for as long as it is not closed. The driver resumes by itself after
 * resumable errors (elections, dropped connections); a stream that fails for good, or ends, is
 * reopened after `retryMs` from the last resume token it gave (the token of its last change, or
 * the server's newer one after a quiet batch), so nothing is missed and nothing needs dropping.
 * Only when there is no usable token (none seen yet, or the server can no longer resume from it:
 * the oplog moved past it) does the new stream start from now: at the server's operation time,
 * read first, with `onMissed` called once just before it opens (see open()). An invalidate event
 * (the watched collection or database dropped or renamed) calls `onMissed` and starts again after
 * it (`startAfter`). Where change streams are unsupported (a standalone server) it logs that once at
 * info level and stops: the caches' TTLs are then the bound.
 */
export function watchResumably(options: ResumableWatchOptions): ChangeWatch {
  const logger = options.logger ?? silentLogger;
  const retryMs = options.retryMs ?? 5000;
  let closed = false;
  let stream: WatchedStream | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** The last resume token's point (resumeAfter or startAfter); undefined when there is none. */
  let resumeFrom: ResumePoint | undefined;
  let first = true;
  const status: ChangeWatchStatus = { state: 'failed' };
  /** Streams in a row that failed before any token: each waits twice the one before (capped). */
  let failuresBeforeToken = 0;

  const later = (delayMs: number, run: () => void) => {
    clearTimeout(timer);
    timer = setTimeout(run, delayMs);
    timer.unref();
  };

  /**
   * Opens the next stream: from the last resume token, or else from the server's operation time
   * now. Then whatever is cached goes (onMissed): it may have been read before a change that no
   * stream will tell of, while anything read from here on is at least as recent as that time,
   * and the stream hears every change made from that time on. So no change slips between the
   * caches filling and the stream's cursor existing, neither at the first opening nor after a
   * resume token was lost.
   */
  const open = () => {
    if (closed) return;
    if (resumeFrom) {
      follow(resumeFrom);
      return;
    }
    options.operationTime().then(
      (time) => {
        if (closed) return;
        // Without a time (a standalone server, whose stream then fails as unsupported), as the
        // driver does: from now, dropping what may have been missed since an earlier stream.
        if (time || !first) options.onMissed();
        first = false;
        follow(time ? { startAtOperationTime: time } : {});
      },
      (error: unknown) => {
        if (closed) return;
        logger.warn(
          { reason: messageOf(error), retryMs },
          `${options.name} change stream cannot start: trying again`,
        );
        later(retryMs, open);
      },
    );
  };

  /** Follows one stream opened at `from` until it fails or ends, then opens the next one. */
  const follow = (from: ResumePoint) => {
    const resuming = from.resumeAfter !== undefined || from.startAfter !== undefined;
    const current = options.open(from);
    stream = current;
    status.state = 'open';
    let ended = false;
    let heard = false;
    /** Stops this stream once; false when it was stopped already or the watch is closed. */
    const end = (): boolean => {
      if (ended) return false;
      ended = true;
      void current.close().catch(() => undefined);
      return !closed;
    };
    const reopen = (delayMs: number) => later(delayMs, open);

    /** The stream has heard everything up to `at` (epoch ms): its position only moves on. */
    const reached = (at: number | undefined) => {
      if (at !== undefined && (status.positionAt === undefined || at > status.positionAt)) {
        status.positionAt = at;
      }
    };
    current.on('resumeTokenChanged', (token) => {
      if (token === null || token === undefined) return;
      // The token of a quiet batch stands for the server's time: nothing before it is unheard.
      if (!ended) reached(resumeTokenTime(token));
      heard = true;
      failuresBeforeToken = 0;
      resumeFrom = { resumeAfter: token };
    });
    current.on('change', (event) => {
      if (ended) return;
      heard = true;
      failuresBeforeToken = 0;
      const madeAt = madeAtOf(event);
      if (madeAt !== undefined) status.lagSeconds = Math.max(0, (Date.now() - madeAt) / 1000);
      reached(madeAt);
      if (event.operationType === 'invalidate') {
        if (!end()) return;
        options.onMissed();
        resumeFrom = { startAfter: event._id };
        reopen(0);
        return;
      }
      resumeFrom = { resumeAfter: event._id };
      options.onChange(event);
    });
    current.on('error', (error: unknown) => {
      if (!end()) return;
      const reason = messageOf(error);
      if (isUnsupported(error)) {
        status.state = 'unavailable';
        logger.info(
          { reason },
          `MongoDB change streams unavailable (not a replica set): ${options.fallback}`,
        );
        return;
      }
      if (error instanceof MongoServerError && Number(error.code) === UNAUTHORIZED) {
        status.state = 'unavailable';
        logger.error(
          { reason },
          `${options.name} change stream not permitted (13 Unauthorized): ${options.fallback}`,
        );
        return;
      }
      status.state = 'failed';
      const refusedResume =
        resuming && !heard && error instanceof MongoServerError && !isBackendUnavailable(error);
      if (
        resumeFrom !== undefined &&
        (refusedResume ||
          (error instanceof MongoServerError && RESUME_LOST_CODES.has(Number(error.code))))
      ) {
        logger.warn(
          { reason },
          `${options.name} change stream cannot resume: caches cleared, following from now`,
        );
        resumeFrom = undefined;
        reopen(0);
        return;
      }
      // A stream that never gave a token reopens from now, dropping the caches: back off, so a
      // server that keeps refusing costs a drop per minute or so, not one every retryMs.
      const delayMs = heard
        ? retryMs
        : retryMs * Math.min(2 ** failuresBeforeToken, MAX_BACKOFF_FACTOR);
      if (!heard) failuresBeforeToken += 1;
      logger.warn(
        { reason, retryMs: delayMs, resuming: resumeFrom !== undefined },
        `${options.name} change stream failed: reopening`,
      );
      reopen(delayMs);
    });
    // The driver emits 'close' also while it resumes by itself (a new cursor follows, or an
    // error); a stream still closed `retryMs` later was ended by the server without an error.
    current.on('close', () => {
      if (ended || closed) return;
      later(retryMs, () => {
        if (stream !== current || !current.closed || !end()) return;
        logger.warn({}, `${options.name} change stream ended: reopening`);
        open();
      });
    });
  };

  open();
  return {
    status: () => ({ ...status }),
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await stream?.close().catch(() => undefined);
    },
  };
}
