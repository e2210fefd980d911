import type { ServerHttp2Stream } from 'node:http2';
import {
  ResponderBuilder,
  ServerInterceptingCall,
  ServerListenerBuilder,
  type ServerInterceptor,
} from '@grpc/grpc-js';

interface StreamEvents {
  prependListener(event: 'stream', listener: (stream: ServerHttp2Stream) => void): unknown;
}

/**
 * Keeps a call's request from its handler once the call's stream is closed. Node ends a stream's
 * request when the stream closes, and grpc-js then hands the handler the request's end as if the
 * client had sent it, before it tells the call it was cancelled: a unary call whose message had
 * arrived would run (a create stored) after the server reset it, the request deadline among them
 * (message-deadline.ts). grpc-js's interceptors do not see the stream, so `watch` notes each
 * stream as it arrives, just before grpc-js builds the call's interceptors, which take it.
 */
export function closedCallGate(): {
  interceptor: ServerInterceptor;
  watch(http2Server: StreamEvents): void;
} {
  let arriving: ServerHttp2Stream | undefined;
  const interceptor: ServerInterceptor = (_method, call) => {
    const stream = arriving;
    arriving = undefined;
    if (stream === undefined) return new ServerInterceptingCall(call);
    const open = () => !stream.closed && !stream.destroyed;
    const listener = new ServerListenerBuilder()
      .withOnReceiveMessage((message, next) => {
        if (open()) next(message);
      })
      .withOnReceiveHalfClose((next) => {
        if (open()) next();
      })
      .build();
    return new ServerInterceptingCall(
      call,
      new ResponderBuilder().withStart((next) => next(listener)).build(),
    );
  };
  return {
    interceptor,
    watch: (http2Server) =>
      http2Server.prependListener('stream', (stream) => {
        arriving = stream;
      }),
  };
}
