import { format } from 'node:util';
import { setLogger } from '@grpc/grpc-js';
import type { Logger } from '../core';

/**
 * grpc-js writes its own messages (an address it could not bind, a trace asked for with
 * GRPC_TRACE) to stderr as plain text; this sends them to the service's logger as JSON lines
 * tagged `component: "grpc-js"`, at the same severity. Which messages grpc-js emits is still its
 * GRPC_VERBOSITY setting (errors only by default); its debug messages need LOG_LEVEL=debug too.
 * grpc-js keeps one logger per process, so the last gateway started sets it.
 */
export function sendGrpcJsLogsTo(logger: Logger): void {
  const at =
    (level: 'error' | 'info' | 'debug') =>
    (message?: unknown, ...rest: unknown[]) =>
      logger[level]({ component: 'grpc-js' }, format(message, ...rest));
  setLogger({ error: at('error'), info: at('info'), debug: at('debug') });
}
