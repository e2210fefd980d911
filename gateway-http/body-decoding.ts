import * as zlib from 'node:zlib';
import { parse as parseContentType } from 'content-type';
import express, { type Request, type Response } from 'express';
import { UndecodableBody } from '../core';
import { DEFAULT_JSON_CHARSET, decodeJsonText, isJsonCharset } from './json-charsets';

export const MAX_BODY_BYTES = 16 * 1024;
/**
 * The message of a body over MAX_BODY_BYTES (BODY_TOO_LARGE), as sent and as the OpenAPI document
 * shows it.
 */
export const BODY_TOO_LARGE_MESSAGE = `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`;

interface BodyParserError {
  type?: string;
  /** The Content-Encoding body-parser refused, lower-cased. */
  encoding?: string;
  /** zlib's code, for a body that does not decompress. */
  code?: string;
}

/**
 * The codings body-parser decompresses (its read.js: zstd only where node's zlib has it), besides
 * `identity`. One coding only: a list such as "gzip, br" is refused.
 */
export const CONTENT_CODINGS: readonly string[] = [
  'gzip',
  'deflate',
  'br',
  ...('createZstdDecompress' in zlib ? ['zstd'] : []),
];

/** A coding short and plain enough to quote back; anything else is not repeated. */
const QUOTABLE_CODING = /^[a-z0-9._+-]{1,32}$/;

function contentEncodingUnsupported(given: string | undefined): UndecodableBody {
  const named = given !== undefined && QUOTABLE_CODING.test(given) ? ` "${given}"` : '';
  return new UndecodableBody(
    'CONTENT_TYPE_UNSUPPORTED',
    `Content-Encoding${named} is not supported; send the body unencoded, or in one of ${CONTENT_CODINGS.join(', ')}.`,
  );
}

/** Names every charset taken (json-charsets.ts), UTF-8 first: it is the one to use. */
const CHARSET_UNSUPPORTED_MESSAGE =
  'The request body must be JSON in UTF-8 (or in UTF-16 or UTF-32, named by the charset parameter).';
const charsetUnsupported = () =>
  new UndecodableBody('CONTENT_TYPE_UNSUPPORTED', CHARSET_UNSUPPORTED_MESSAGE);

const notJson = () => new UndecodableBody('BODY_INVALID');

/**
 * The charset the header declares, read by `content-type` (the parser express itself uses);
 * undefined when there is none, or an empty one, which is read as UTF-8. A header without ";" has
 * no parameters, so it is not parsed twice.
 */
function declaredCharset(contentType: string): string | undefined {
  if (!contentType.includes(';')) return undefined;
  try {
    return parseContentType(contentType).parameters['charset']?.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}

const DECOMPRESSION_ERROR = /^(Z_|ERR__ERROR_FORMAT_|ZSTD_error_)/;

function undecodable(error: BodyParserError): UndecodableBody {
  switch (error.type) {
    case 'entity.too.large':
      return new UndecodableBody('BODY_TOO_LARGE', BODY_TOO_LARGE_MESSAGE);
    case 'encoding.unsupported':
      return contentEncodingUnsupported(error.encoding);
    default:
      // The decompressors' errors have no type: zlib's codes are Z_DATA_ERROR, Z_BUF_ERROR...,
      // brotli's ERR__ERROR_FORMAT_..., zstd's ZSTD_error_....
      return error.code !== undefined && DECOMPRESSION_ERROR.test(error.code)
        ? new UndecodableBody(
            'BODY_INVALID',
            'The request body does not decompress as its Content-Encoding says.',
          )
        : notJson();
  }
}

function isJsonMediaType(contentType: string): boolean {
  const mediaType = contentType.split(';', 1)[0] ?? '';
  return mediaType.trim().toLowerCase() === 'application/json';
}

/** The body's bytes (decompressed, at most MAX_BODY_BYTES); the text is decoded here, strictly. */
const readBody = express.raw({ limit: MAX_BODY_BYTES, type: () => true });

/** The JSON value of the body's bytes, or the UndecodableBody that says why there is none. */
function parseJson(bytes: Buffer, charset: string): unknown {
  // An empty body is not JSON (BODY_INVALID, not ORGANIZATION_KEY_MISSING).
  if (bytes.length === 0) return notJson();
  const text = decodeJsonText(bytes, charset);
  if (text === undefined) {
    return new UndecodableBody(
      'BODY_INVALID',
      `The request body is not valid ${charset.toUpperCase()} text.`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return notJson();
  }
}

/**
 * Decodes the body into `req.body`, or, when it cannot, puts an UndecodableBody there: the core
 * reports it at its place in the precedence (after the token and the rate limit). Calls `next`
 * once either way, except for a request cut off before its body ended (the client went away, or
 * the server answered 408 because the body did not arrive in time): no one is left to answer, so
 * the request goes no further.
 */
export function decodeJsonBody(req: Request, res: Response, next: () => void): void {
  const contentType = req.headers['content-type'];
  if (contentType !== undefined && !isJsonMediaType(contentType)) {
    req.body = new UndecodableBody('CONTENT_TYPE_UNSUPPORTED');
    next();
    return;
  }
  const charset =
    (contentType === undefined ? undefined : declaredCharset(contentType)) ?? DEFAULT_JSON_CHARSET;
  if (!isJsonCharset(charset)) {
    req.body = charsetUnsupported();
    next();
    return;
  }
  readBody(req, res, (error?: unknown) => {
    if ((error as BodyParserError | undefined)?.type === 'request.aborted') return;
    if (error) req.body = undecodable(error);
    // A request with no body at all (no Content-Length, not chunked) leaves it undefined.
    else if (Buffer.isBuffer(req.body)) req.body = parseJson(req.body, charset);
    next();
  });
}
