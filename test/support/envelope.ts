import { reasonOf, type ErrorCodeNumber } from '../../core';
import { HTTP_STATUS_BY_REASON } from '../../gateway-http/status-by-reason';
import type { RawAnswer } from './raw-http';

export interface Envelope {
  data: Record<string, unknown> | null;
  code: number;
  errors: string[];
}

/**
 * Checks that an answer is the contract's envelope with the HTTP status its code implies, and
 * returns it. Throws (with the answer in the message) otherwise, so fast-check shrinks to it.
 */
export function expectEnvelope(answer: RawAnswer): Envelope {
  const fail = (why: string): never => {
    throw new Error(`${why}: HTTP ${answer.status} ${answer.text.slice(0, 500)}`);
  };
  if (answer.status >= 500) fail('5xx answer');
  if (!/^application\/json\b/.test(answer.headers['content-type'] ?? '')) fail('not JSON');
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return fail('unparseable JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) fail('not an object');
  const envelope = body as Envelope;
  const keys = Object.keys(envelope).sort().join(',');
  if (keys !== 'code,data,errors') fail(`keys ${keys}`);
  if (!Number.isInteger(envelope.code)) fail('code not an integer');
  if (!Array.isArray(envelope.errors) || !envelope.errors.every((e) => typeof e === 'string')) {
    fail('errors not a string array');
  }
  if (envelope.code === 0) {
    if (answer.status !== 200) fail('success without 200');
    if (typeof envelope.data !== 'object' || envelope.data === null) fail('success without data');
    if (envelope.errors.length !== 0) fail('success with errors');
  } else {
    let reason;
    try {
      reason = reasonOf(envelope.code as ErrorCodeNumber);
    } catch {
      return fail('unknown code');
    }
    if (answer.status !== HTTP_STATUS_BY_REASON[reason]) fail(`status does not match ${reason}`);
    if (envelope.data !== null) fail('error with data');
    if (envelope.errors.length === 0) fail('error without messages');
  }
  return envelope;
}
