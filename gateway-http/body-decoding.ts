import { parse as parseContentType } from 'content-type';
import express, { type Request, type Response } from 'express';
import { UndecodableBody } from '../core';

export const MAX_BODY_BYTES = 16 * 1024;

interface BodyParserError {
  type?: string;
}

/**
 * The encodings JSON may come in (RFC 8259 section 8.1 and its predecessor's UTF-16 and UTF-32).
 * body-parser itself accepts any charset that starts with `utf-` and that iconv-lite decodes,
 * UTF-7 included, which would let a body read one way by a proxy's JSON inspection and another
 * way here.
 */
const JSON_CHARSETS: ReadonlySet<string> = new Set([
  'utf-8',
  'utf-16',
  'utf-16le',
  'utf-16be',
  'utf-32',
  'utf-32le',
  'utf-32be',
]);

const charsetUnsupported = () =>
  new UndecodableBody('CONTENT_TYPE_UNSUPPORTED', 'The request body must be JSON in UTF-8.');

/**
 * The charset the header declares, read by the parser body-parser uses (so both read the same
 * one); undefined when there is none, or an empty one, which body-parser reads as UTF-8. A header
 * without ";" has no parameters, so it is not parsed twice.
 */
function declaredCharset(contentType: string): string | undefined {
  if (!contentType.includes(';')) return undefined;
  try {
    return parseContentType(contentType).parameters['charset']?.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}

function undecodable(error: BodyParserError): UndecodableBody {
  switch (error.type) {
    case 'entity.too.large':
      return new UndecodableBody('BODY_TOO_LARGE', 'The request body is larger than 16 KiB.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return charsetUnsupported();
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
  const charset = contentType === undefined ? undefined : declaredCharset(contentType);
  if (charset !== undefined && !JSON_CHARSETS.has(charset)) {
    req.body = charsetUnsupported();
    next();
    return;
  }
  parseJson(req, res, (error?: unknown) => {
    if (error) req.body = undecodable(error);
    next();
  });
}
