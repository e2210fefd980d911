import type { ServerUnaryCall } from '@grpc/grpc-js';
import { ShortlinkError, type Core, type Logger, type ResponseInfo } from '../core';
import { authorizationOf, clientAddressOf } from './call-context';
import { idempotencyKeyOf, setIdempotencyMetadata } from './idempotency-metadata';
import type { ShortLinkServiceServer } from './generated/shortlink/v1/shortlink';
import { toCreateBody, toShortLinkMessage } from './messages';
import { setRateLimitMetadata } from './rate-limit-metadata';
import { isUndecodable } from './tolerant-decoding';
import { unary } from './unary';

function requestContext<TRequest, TResponse>(
  call: ServerUnaryCall<TRequest, TResponse>,
  response: ResponseInfo,
) {
  return {
    authorization: authorizationOf(call.metadata),
    clientAddress: clientAddressOf(call.getPeer()),
    response,
  };
}

/** shortlink.v1.ShortLinkService on the core's procedures: no rule lives here. */
export function createShortLinkService(core: Core, logger: Logger): ShortLinkServiceServer {
  const windowSeconds = core.deps.rateLimiter.windowSeconds;
  return {
    createShortLink: unary(
      'CreateShortLink',
      async (call, trailers) => {
        const response: ResponseInfo = {};
        try {
          const caller = core.createCaller({
            ...requestContext(call, response),
            idempotencyKey: idempotencyKeyOf(call.metadata),
          });
          // Untrusted input, typed as the transport received it: the core validates it.
          const body = isUndecodable(call.request) ? call.request : toCreateBody(call.request);
          const link = await caller.links.create(body as never);
          return { shortLink: toShortLinkMessage(link) };
        } finally {
          setRateLimitMetadata(trailers, response, windowSeconds);
          setIdempotencyMetadata(trailers, response);
        }
      },
      logger,
    ),
    resolveShortLink: unary(
      'ResolveShortLink',
      async (call) => {
        // Public, like following a link over HTTP: no token is asked for.
        if (isUndecodable(call.request)) {
          throw new ShortlinkError(call.request.reason, call.request.message);
        }
        const { domain, alias } = call.request;
        const link = await core
          .createCaller({ clientAddress: clientAddressOf(call.getPeer()) })
          .links.resolve({ domain, alias });
        return { shortLink: toShortLinkMessage(link) };
      },
      logger,
    ),
  };
}
