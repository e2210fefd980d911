import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, RequestHandler } from 'express';
import type { Logger } from 'pino';

declare module 'http' {
  interface IncomingMessage {
    /** The request id (a valid incoming X-Request-Id, or a fresh UUID). */
    id: string;
    /** A logger bound to this request's id, made on first use. */
    readonly log: Logger;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

const requestLoggers = new WeakMap<IncomingMessage, Logger>();

/** The code node gives the error it closes a connection with when a request is too slow. */
const REQUEST_TIMEOUT = 'ERR_HTTP_REQUEST_TIMEOUT';

interface Outcome {
  event: string;
  /** The status the client was sent, if it was sent one. */
  statusCode: number | undefined;
}

/**
 * How a request whose answer never finished ended: its answer had begun (the status it had), or
 * node answered 408 because the request did not arrive in time (node writes that on the socket,
 * past the response object, and closes the connection with the timeout error), or the client went
 * away and was told nothing.
 */
function unfinishedOutcome(req: IncomingMessage, res: ServerResponse): Outcome {
  if (res.headersSent) return { event: 'request aborted', statusCode: res.statusCode };
  const cause = req.socket.errored as { code?: unknown } | null;
  return cause?.code === REQUEST_TIMEOUT
    ? { event: 'request timed out', statusCode: 408 }
    : { event: 'request aborted', statusCode: undefined };
}

/**
 * One JSON log line per finished request with a request id, echoed as X-Request-Id:
 * `request completed`; `request timed out` when node answered 408 because the request did not
 * arrive in time; `request aborted` when the client went away first, with no status unless an
 * answer had begun. The line holds only method, path, status, address and time: headers and
 * bodies, where secrets travel, are never logged.
 *
 * Hand-written rather than pino-http: measured on the follow-link path, pino-http's per-request
 * child logger and listeners halved throughput even with request logs turned off; here the
 * per-request logger is made only when something logs for that request.
 */
export function requestLogging(app: Express, logger: Logger): RequestHandler {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: IncomingMessage): Logger {
      let bound = requestLoggers.get(this);
      if (!bound) {
        bound = logger.child({ req: { id: this.id } });
        requestLoggers.set(this, bound);
      }
      return bound;
    },
  });
  return (req, res, next) => {
    const id = requestId(req);
    req.id = id;
    res.setHeader('X-Request-Id', id);
    if (logger.isLevelEnabled('info')) {
      const started = performance.now();
      // Read now: once the socket is gone it has no address.
      const remoteAddress = req.socket.remoteAddress;
      // The path as the router reads it (express's req.path): of an absolute-form target
      // (`GET http://user:password@host/path`), only the path, never its credentials or host.
      const path = req.path;
      const log = ({ event, statusCode }: Outcome) => {
        const record = {
          req: { id, method: req.method, path, remoteAddress },
          ...(statusCode !== undefined && { res: { statusCode } }),
          responseTime: Math.round(performance.now() - started),
        };
        if (statusCode !== undefined && statusCode >= 500) logger.error(record, event);
        else logger.info(record, event);
      };
      const unfinished = () => log(unfinishedOutcome(req, res));
      res.once('finish', () => {
        res.off('close', unfinished);
        log({ event: 'request completed', statusCode: res.statusCode });
      });
      res.once('close', unfinished);
    }
    next();
  };
}
