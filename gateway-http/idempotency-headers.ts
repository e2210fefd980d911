import type { IncomingMessage } from 'node:http';
import type { Response } from 'express';
import { idempotencyFields, type ResponseInfo } from '../core';

/** Lower-case, as node names incoming headers. */
const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/**
 * The `Idempotency-Key` header as the core expects it: undefined when absent, every value when it
 * came more than once (the core refuses that, code 27). Read from node's `headersDistinct`, since
 * `headers` joins repeated lines with ", ".
 */
export function idempotencyKeyOf(
  headers: Pick<IncomingMessage, 'headersDistinct'>['headersDistinct'],
): string | readonly string[] | undefined {
  const values = headers[IDEMPOTENCY_KEY_HEADER];
  return values?.length === 1 ? values[0] : values;
}

/** `Idempotent-Replayed: true` on an answer replayed for a repeated `Idempotency-Key`. */
export function setIdempotencyHeaders(res: Response, info: ResponseInfo): void {
  for (const [name, value] of idempotencyFields(info)) res.setHeader(name, value);
}
