import type { ServerUnaryCall } from '@grpc/grpc-js';
import {
  ShortlinkError,
  type Core,
  type Logger,
  type ResponseInfo,
  type ShortlinkMetrics,
} from '../core';
import { authorizationOf, clientAddressOf } from './call-context';
import type { ShortLinkServiceServer } from './generated/shortlink/v1/shortlink';
import { toCreateBody, toShortLinkMessage } from './messages';
import { setRateLimitMetadata } from './rate-limit-metadata';
import { isUndecodable } from './tolerant-decoding';
import { unary } from './unary';
import { measuredBy } from './measured-handler';

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
export function createShortLinkService(
  core: Core,
  logger: Logger,
  metrics?: ShortlinkMetrics,
): ShortLinkServiceServer {
  const windowSeconds = core.deps.rateLimiter.windowSeconds;
  return {
    createShortLink: unary(
      'CreateShortLink',
      measuredBy(
        metrics?.operation('grpc', 'create'),
        async (call, trailers) => {
          const response: ResponseInfo = {};
          try {
            const caller = core.createCaller(requestContext(call, response));
            // Untrusted input, typed as the transport received it: the core validates it.
            const body = isUndecodable(call.request) ? call.request : toCreateBody(call.request);
            const link = await caller.links.create(body as never);
            return { shortLink: toShortLinkMessage(link) };
          } finally {
            setRateLimitMetadata(trailers, response, windowSeconds);
          }
        },
        metrics?.linkCreatedOn('grpc'),
      ),
      logger,
    ),
    resolveShortLink: unary(
      'ResolveShortLink',
      measuredBy(metrics?.operation('grpc', 'resolve'), async (call) => {
        // Public, like following a link over HTTP: no token is asked for.
        if (isUndecodable(call.request)) {
          throw new ShortlinkError(call.request.reason, call.request.message);
        }
        const { domain, alias } = call.request;
        const link = await core
          .createCaller({ clientAddress: clientAddressOf(call.getPeer()) })
          .links.resolve({ domain, alias });
        return { shortLink: toShortLinkMessage(link) };
      }),
      logger,
    ),
  };
}
