import {
  MongoServerError,
  type ChangeStream,
  type ChangeStreamOptions,
  type Document,
  type ResumeToken,
} from 'mongodb';
import { messageOf } from '../../errors/message-of';
import { silentLogger, type Logger } from '../../ports/logger';
import type { ChangeWatch } from '../../ports/store';
import { isBackendUnavailable } from './backend-errors';

/** The fields of a change event the watchers read (their pipelines project to these). */
export type WatchedEvent = {
  /** The event's resume token. */
  _id: ResumeToken;
  operationType: string;
  ns?: { db?: string; coll?: string };
  documentKey?: Record<string, unknown>;
  fullDocument?: Record<string, unknown> | null;
};

export type WatchedStream = ChangeStream<Document, WatchedEvent>;

/** Where a stream starts: after a change it saw, or after an invalidate event. */
export type ResumePoint = Pick<ChangeStreamOptions, 'resumeAfter' | 'startAfter'>;

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

export interface ResumableWatchOptions {
  /** Opens a change stream starting at `from` (from now when empty). */
  open(from: ResumePoint): WatchedStream;
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
 * the oplog moved past it) does the new stream start from now, and then `onMissed` is called
 * once, as it opens (so what was read while no stream ran goes too). An invalidate event (the
 * watched collection or database dropped or renamed) calls `onMissed` and starts again after it
 * (`startAfter`). Where change streams are unsupported (a standalone server) it logs that once at
 * info level and stops: the caches' TTLs are then the bound.
 */
export function watchResumably(options: ResumableWatchOptions): ChangeWatch {
  const logger = options.logger ?? silentLogger;
  const retryMs = options.retryMs ?? 5000;
  let closed = false;
  let stream: WatchedStream | undefined;
  let timer: NodeJS.Timeout | undefined;
  let resumeFrom: ResumePoint | undefined;
  /** Nothing is cached before the first stream opens: nothing can have been missed yet. */
  let first = true;

  const later = (delayMs: number, run: () => void) => {
    clearTimeout(timer);
    timer = setTimeout(run, delayMs);
    timer.unref();
  };

  const open = () => {
    if (closed) return;
    const from = resumeFrom;
    const current = options.open(from ?? {});
    stream = current;
    // Starting again from now: whatever changed since the last stream may not have been heard of.
    if (!from && !first) options.onMissed();
    first = false;
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

    current.on('resumeTokenChanged', (token) => {
      if (token === null || token === undefined) return;
      heard = true;
      resumeFrom = { resumeAfter: token };
    });
    current.on('change', (event) => {
      if (ended) return;
      heard = true;
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
        logger.info(
          { reason },
          `MongoDB change streams unavailable (not a replica set): ${options.fallback}`,
        );
        return;
      }
      const refusedResume =
        from !== undefined &&
        !heard &&
        error instanceof MongoServerError &&
        !isBackendUnavailable(error);
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
      logger.warn(
        { reason, retryMs, resuming: resumeFrom !== undefined },
        `${options.name} change stream failed: reopening`,
      );
      reopen(retryMs);
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
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await stream?.close().catch(() => undefined);
    },
  };
}
