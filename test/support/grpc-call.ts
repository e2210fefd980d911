import type { ServiceError, StatusObject } from '@grpc/grpc-js';

/** What one unary call ended with: the response or the error, and the status with its trailers. */
export interface CallOutcome<TResponse> {
  response: TResponse | undefined;
  error: ServiceError | undefined;
  status: StatusObject;
}

/**
 * Starts a unary call with the callback given and resolves once the call's status (with its
 * trailers) has arrived, whatever it is: the one way every gRPC test waits for an answer.
 */
export function outcomeOf<TResponse>(
  start: (callback: (error: ServiceError | null, response?: TResponse) => void) => {
    on(event: 'status', listener: (status: StatusObject) => void): unknown;
  },
): Promise<CallOutcome<TResponse>> {
  return new Promise((resolve) => {
    let response: TResponse | undefined;
    let error: ServiceError | undefined;
    const call = start((callError, callResponse) => {
      error = callError ?? undefined;
      response = callResponse;
    });
    call.on('status', (status) => resolve({ response, error, status }));
  });
}
