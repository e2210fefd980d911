import express, { type Request, type Response } from 'express';
import { UndecodableBody } from '../core';

export const MAX_BODY_BYTES = 16 * 1024;

interface BodyParserError {
  type?: string;
}

function undecodable(error: BodyParserError): UndecodableBody {
  switch (error.type) {
    case 'entity.too.large':
      return new UndecodableBody('BODY_TOO_LARGE', 'The request body is larger than 16 KiB.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UndecodableBody(
        'CONTENT_TYPE_UNSUPPORTED',
        'The request body must be JSON in UTF-8.',
      );
    default:
      return new UndecodableBody('BODY_INVALID', 'The request body is not valid JSON.');
  }
}

function isJsonMediaType(contentType: string): boolean {
  const mediaType = contentType.split(';', 1)[0] ?? '';
  return mediaType.trim().toLowerCase() === 'application/json';
}

const parseJson = express.json({
  limit: MAX_BODY_BYTES,
  strict: false,
  type: () => true,
  // body-parser reads an empty body as {}; an empty body is not JSON (code 20, not 4).
  verify: (_req, _res, raw) => {
    if (raw.length === 0) throw Object.assign(new Error('empty body'), { type: 'entity.empty' });
  },
});

/**
 * Decodes the body into `req.body`, or, when it cannot, puts an UndecodableBody there: the core
 * reports it at its place in the precedence (after the token and the rate limit). Calls `next`
 * once either way.
 */
export function decodeJsonBody(req: Request, res: Response, next: () => void): void {
  const contentType = req.headers['content-type'];
  if (contentType !== undefined && !isJsonMediaType(contentType)) {
    req.body = new UndecodableBody(
      'CONTENT_TYPE_UNSUPPORTED',
      'Content-Type must be application/json.',
    );
    next();
    return;
  }
  parseJson(req, res, (error?: unknown) => {
    if (error) req.body = undecodable(error);
    next();
  });
}
