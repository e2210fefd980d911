import { format } from 'node:util';
import { setLogger } from '@grpc/grpc-js';
import type { Logger } from '../core';

/**
 * The `authorization` entry of metadata as grpc-js's call trace prints it (the metadata's JSON: a
 * key and an array of strings). Its value is the caller's token.
 */
const AUTHORIZATION_IN_JSON = /"authorization":\[(?:"(?:[^"\\]|\\.)*",?)*\]/gi;
/**
 * The error grpc-js logs for a metadata value it drops (a control or non-ASCII character):
 * `Failed to add metadata entry <key>: <value>. Metadata string value "<value>" contains illegal
 * characters...`, once by default (GRPC_VERBOSITY=ERROR). For `authorization` both copies of the
 * value are the caller's token, a stray character aside; the whole line is replaced.
 */
const AUTHORIZATION_NOT_ADDED = /^Failed to add metadata entry authorization:[\s\S]*$/i;

/** A grpc-js message without the token it would print with the call's metadata. */
function withoutToken(message: string): string {
  return message
    .replace(AUTHORIZATION_IN_JSON, '"authorization":["[redacted]"]')
    .replace(AUTHORIZATION_NOT_ADDED, 'Failed to add metadata entry authorization: [redacted]');
}

/**
 * grpc-js writes its own messages (an address it could not bind, a trace asked for with
 * GRPC_TRACE) to stderr as plain text; this sends them to the service's logger as JSON lines
 * tagged `component: "grpc-js"`, at the same severity, with the token a call trace prints taken
 * out. Which messages grpc-js emits is still its GRPC_VERBOSITY setting (errors only by default);
 * its debug messages need LOG_LEVEL=debug too, and LOG_LEVEL=silent silences them all. grpc-js
 * keeps one logger per process, so the last gateway started sets it.
 */
export function sendGrpcJsLogsTo(logger: Logger): void {
  const at =
    (level: 'error' | 'info' | 'debug') =>
    (message?: unknown, ...rest: unknown[]) =>
      logger[level]({ component: 'grpc-js' }, withoutToken(format(message, ...rest)));
  setLogger({ error: at('error'), info: at('info'), debug: at('debug') });
}
