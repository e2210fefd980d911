import {
  Metadata,
  type handleUnaryCall,
  type sendUnaryData,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import { ShortlinkError, toShortlinkError, type Logger } from '../core';
import { toGrpcStatus } from './error-status';

/**
 * A unary handler as the gateway writes it: resolve with the response or throw anything. The
 * handler may add trailing metadata (rate-limit figures) to `trailers`; it is sent either way.
 */
export type UnaryHandler<TRequest, TResponse> = (
  call: ServerUnaryCall<TRequest, TResponse>,
  trailers: Metadata,
) => Promise<TResponse>;

/**
 * The one wrapper every RPC goes through, so each call is answered exactly once: a resolved
 * handler answers OK, a rejected or throwing one answers with its mapped status (unexpected
 * errors become INTERNAL without leaking internals). A call that ended already (deadline
 * exceeded, client cancelled) is not answered: grpc-js has closed it with its own status.
 */
export function unary<TRequest, TResponse>(
  method: string,
  handler: UnaryHandler<TRequest, TResponse>,
  logger: Logger,
): handleUnaryCall<TRequest, TResponse> {
  return (call, callback) => {
    const started = performance.now();
    let answered = false;
    const answer: sendUnaryData<TResponse> = (error, value, trailers) => {
      if (answered) return;
      answered = true;
      if (call.cancelled) {
        logger.debug({ method }, 'call ended before its answer (deadline exceeded or cancelled)');
        return;
      }
      // The REST gateway's access log, for gRPC: never the metadata (it holds the token).
      logger.info(
        {
          method,
          peer: call.getPeer(),
          code: error?.code ?? 0,
          responseTime: Math.round(performance.now() - started),
        },
        'call completed',
      );
      callback(error, value, trailers);
    };
    if (call.cancelled) {
      logger.debug({ method }, 'call ended before it was handled (deadline exceeded or cancelled)');
      return;
    }
    // Logged when it happens, so an abandoned call can be told from a slow one.
    call.once('cancelled', () => logger.debug({ method }, 'call cancelled by deadline or client'));
    const trailers = new Metadata();
    let outcome: Promise<TResponse>;
    try {
      outcome = handler(call, trailers);
    } catch (error) {
      outcome = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    outcome
      .then(
        (value) => answer(null, value, trailers),
        (error: unknown) => {
          // The core logged its own faults (createCaller's hook); anything else is the gateway's.
          if (!(error instanceof ShortlinkError)) {
            logger.error({ err: error, method }, 'call failed');
          }
          answer(toGrpcStatus(toShortlinkError(error), trailers));
        },
      )
      .catch((error: unknown) => logger.error({ err: error, method }, 'answering a call failed'));
  };
}
