import type { ServerUnaryCall } from '@grpc/grpc-js';
import {
  ShortlinkError,
  type Core,
  type Logger,
  type RequestContext,
  type ResponseInfo,
  type ShortlinkMetrics,
} from '../core';
import type { TrustProxy } from '../core/runtime';
import { authorizationOf, clientAddressOf } from './call-context';
import { idempotencyKeyOf, setIdempotencyMetadata } from './idempotency-metadata';
import type { ShortLinkServiceServer } from './generated/shortlink/v1/shortlink';
import { toCreateBody, toShortLinkMessage } from './messages';
import { setRateLimitMetadata } from './rate-limit-metadata';
import { isUndecodable } from './tolerant-decoding';
import { unary } from './unary';
import { measuredBy } from './measured-handler';

function requestContext<TRequest, TResponse>(
  call: ServerUnaryCall<TRequest, TResponse>,
  response: ResponseInfo,
  logger: Logger,
  trustProxy: TrustProxy | undefined,
): RequestContext {
  return {
    authorization: authorizationOf(call.metadata),
    clientAddress: clientAddressOf(call, trustProxy),
    idempotencyKey: idempotencyKeyOf(call.metadata),
    logger,
    response,
  };
}

/**
 * shortlink.v1.ShortLinkService on the core's procedures: no rule lives here. `trustProxy`
 * (TRUST_PROXY) says whose `x-forwarded-for` metadata names the client, as on REST; `metrics`,
 * when given, counts and times the calls.
 */
export function createShortLinkService(
  core: Core,
  logger: Logger,
  trustProxy?: TrustProxy,
  metrics?: ShortlinkMetrics,
): ShortLinkServiceServer {
  const created = metrics?.linkCreatedOn('grpc');
  const replayed = metrics?.replayedOn('grpc');
  return {
    createShortLink: unary(
      'CreateShortLink',
      measuredBy(metrics?.operation('grpc', 'create'), async (call, trailers) => {
        const response: ResponseInfo = {};
        try {
          const caller = core.createUntypedCaller(
            requestContext(call, response, logger, trustProxy),
          );
          // Untrusted input, typed as the transport received it: the core validates it.
          const body = isUndecodable(call.request) ? call.request : toCreateBody(call.request);
          const link = await caller.links.create(body);
          // A replayed answer names a link created by the first request, counted then.
          if (!response.idempotentReplayed) created?.();
          return { shortLink: toShortLinkMessage(link) };
        } finally {
          setRateLimitMetadata(trailers, response);
          setIdempotencyMetadata(trailers, response);
          // A replay is counted when it is answered, as over REST: not for a call that ended.
          if (response.idempotentReplayed && !call.cancelled) replayed?.();
        }
      }),
      logger,
    ),
    resolveShortLink: unary(
      'ResolveShortLink',
      measuredBy(metrics?.operation('grpc', 'resolve'), async (call, trailers) => {
        // Public, like following a link over HTTP: no token is asked for.
        if (isUndecodable(call.request)) {
          throw new ShortlinkError(call.request.reason, call.request.message);
        }
        const { domain, alias } = call.request;
        // `response` receives the retry-after of a store that is unavailable (23).
        const response: ResponseInfo = {};
        try {
          const link = await core
            .createCaller({ logger, response })
            .links.resolve({ domain, alias });
          return { shortLink: toShortLinkMessage(link) };
        } finally {
          setRateLimitMetadata(trailers, response);
        }
      }),
      logger,
    ),
  };
}
