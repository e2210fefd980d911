import type { IncomingHttpHeaders } from 'node:http';
import type { Response } from 'express';
import { idempotencyFields, type ResponseInfo } from '../core';

/** Lower-case, as node names incoming headers. */
const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/**
 * The `Idempotency-Key` header as the core expects it: undefined when absent. Node joins a
 * repeated header with ", ", which makes it malformed (code 27) rather than guessed at.
 */
export function idempotencyKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers[IDEMPOTENCY_KEY_HEADER];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** `Idempotent-Replayed: true` on an answer replayed for a repeated `Idempotency-Key`. */
export function setIdempotencyHeaders(res: Response, info: ResponseInfo): void {
  for (const [name, value] of idempotencyFields(info)) res.setHeader(name, value);
}
