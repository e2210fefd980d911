import {
  Metadata,
  type handleUnaryCall,
  type sendUnaryData,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import { ShortlinkError, toShortlinkError, type Logger } from '../core';
import { toGrpcStatus } from './error-status';

/** The call log's messages: answered with a status, or ended before its answer. */
const CALL_COMPLETED = 'call completed';
const CALL_ABORTED = 'call aborted';

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
 * exceeded, client cancelled) is not answered: grpc-js has closed it with its own status. Each
 * call is logged once, `call completed` with its status code or `call aborted` without one.
 */
export function unary<TRequest, TResponse>(
  method: string,
  handler: UnaryHandler<TRequest, TResponse>,
  logger: Logger,
): handleUnaryCall<TRequest, TResponse> {
  return (call, callback) => {
    const started = performance.now();
    // The REST gateway's access log, for gRPC: never the metadata (it holds the token). A call
    // that ended first (deadline exceeded, client cancelled) is logged too, with no status: the
    // client was sent none of ours, as REST logs `request aborted`.
    const logCall = (code: number | undefined) =>
      logger.info(
        {
          method,
          peer: call.getPeer(),
          ...(code === undefined ? {} : { code }),
          responseTime: Math.round(performance.now() - started),
        },
        code === undefined ? CALL_ABORTED : CALL_COMPLETED,
      );
    let answered = false;
    const answer: sendUnaryData<TResponse> = (error, value, trailers) => {
      if (answered) return;
      answered = true;
      if (call.cancelled) {
        logCall(undefined);
        return;
      }
      logCall(error?.code ?? 0);
      callback(error, value, trailers);
    };
    if (call.cancelled) {
      logCall(undefined);
      return;
    }
    // Logged when it happens, so an abandoned call can be told from a slow one.
    // grpc-js also emits 'cancelled' when an answered call's stream closes: not logged then.
    call.once('cancelled', () => {
      if (!answered) logger.debug({ method }, 'call cancelled by deadline or client');
    });
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
