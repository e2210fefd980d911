import type { IncomingMessage } from 'node:http';
import type { Response } from 'express';
import { idempotencyFields, type ResponseInfo } from '../core';

/** Lower-case, as node names incoming headers. */
const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/**
 * The `Idempotency-Key` header as the core expects it: undefined when absent, every value when it
 * came more than once (the core takes a list of one as that key, and refuses more,
 * IDEMPOTENCY_KEY_INVALID). Node joins repeated lines with ", " in `headers`; a valid key holds no
 * space, so only a value with one costs a look at the separate lines (`headersDistinct`, built on
 * first use).
 */
export function idempotencyKeyOf(
  req: Pick<IncomingMessage, 'headers' | 'headersDistinct'>,
): string | readonly string[] | undefined {
  // Typed as possibly a list, which node makes only of set-cookie.
  const value = req.headers[IDEMPOTENCY_KEY_HEADER];
  if (typeof value !== 'string' || !value.includes(', ')) return value;
  return req.headersDistinct[IDEMPOTENCY_KEY_HEADER];
}

/** `Idempotent-Replayed: true` on an answer replayed for a repeated `Idempotency-Key`. */
export function setIdempotencyHeaders(res: Response, info: ResponseInfo): void {
  for (const [name, value] of idempotencyFields(info)) res.setHeader(name, value);
}
