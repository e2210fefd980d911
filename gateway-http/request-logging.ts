import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** The request as the serializer receives it: express's request, or node's before express. */
type RawRequest = IncomingMessage & { id?: unknown; originalUrl?: string };

/**
 * One JSON log line per request with a request id (echoed as X-Request-Id). The serializers
 * write only method, path, status and address: headers and bodies, where secrets travel, are
 * never logged.
 */
export function requestLogging(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const id = requestId(req);
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // The serializers read the raw objects: pino-http's default wrapping first copies each
    // request into pino-std-serializers' shape (headers, and express's lazily parsed query and
    // params), on every request, only for these serializers to keep four fields of it.
    wrapSerializers: false,
    serializers: {
      req: (req: RawRequest) => ({
        id: req.id,
        method: req.method,
        path: (req.originalUrl ?? req.url ?? '').split('?', 1)[0],
        remoteAddress: req.socket?.remoteAddress,
      }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  });
}
