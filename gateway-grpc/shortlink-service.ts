import type { ServerUnaryCall } from '@grpc/grpc-js';
import {
  ShortlinkError,
  toPublicLinkView,
  type Core,
  type Logger,
  type Operation,
  type RequestContext,
  type ResponseInfo,
  type ShortlinkMetrics,
} from '../core';
import type { TrustProxy } from '../core/runtime';
import { authorizationOf, clientAddressOf } from './call-context';
import { idempotencyKeyOf, setIdempotencyMetadata } from './idempotency-metadata';
import type {
  GetShortLinkRequest,
  ListShortLinksRequest,
  ShortLinkServiceServer,
} from './generated/shortlink/v1/shortlink';
import {
  toCreateBody,
  toCreatedLinkMessage,
  toDisableBody,
  toHistoryBody,
  toHistoryEntryMessage,
  toLinkReferenceBody,
  toListBody,
  toPublicLinkMessage,
  toShortLinkMessage,
  toUpdateBody,
  toVisitsBody,
  toVisitsMessage,
} from './messages';
import { setRateLimitMetadata } from './rate-limit-metadata';
import { isUndecodable } from './tolerant-decoding';
import { unary, type UnaryHandler } from './unary';
import { measuredBy } from './measured-handler';

type CoreCaller = ReturnType<Core['createUntypedCaller']>;

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
  const followed = metrics?.follows('grpc');

  /**
   * An RPC that reads or governs links: the core authenticates it as a create (token,
   * organization key, membership) and counts it against the token's rate limit, whose figures
   * go back in the trailers, success or not. `toBody` gives the core's arguments of a decoded
   * request; an undecodable one reaches the core as such (BODY_INVALID, at its place).
   */
  function governing<TRequest, TResponse>(
    method: string,
    operation: Operation,
    toBody: (request: TRequest) => Record<string, unknown>,
    run: (caller: CoreCaller, body: unknown) => Promise<TResponse>,
  ) {
    const handler: UnaryHandler<TRequest, TResponse> = async (call, trailers) => {
      const response: ResponseInfo = {};
      try {
        const caller = core.createUntypedCaller(requestContext(call, response, logger, trustProxy));
        return await run(caller, isUndecodable(call.request) ? call.request : toBody(call.request));
      } finally {
        setRateLimitMetadata(trailers, response);
      }
    };
    return unary(method, measuredBy(metrics?.operation('grpc', operation), handler), logger);
  }

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
          return { shortLink: toCreatedLinkMessage(link) };
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
        const { domain, alias, countVisit, userAgent } = call.request;
        // `response` receives the retry-after of a store that is unavailable (BACKEND_UNAVAILABLE),
        // or of a client address past its budget of unknown aliases (RATE_LIMITED), which REST
        // follows share.
        const response: ResponseInfo = {};
        try {
          const link = await core
            .createCaller({ clientAddress: clientAddressOf(call, trustProxy), logger, response })
            // A caller that redirects someone says so: a visit, as a REST GET is.
            .links.resolve({
              domain,
              alias,
              visit: countVisit ?? false,
              userAgent: countVisit ? userAgent : undefined,
            });
          followed?.(0);
          // No member's credentials are asked for: the answer is what a follow shows.
          return { shortLink: toPublicLinkMessage(toPublicLinkView(link)) };
        } catch (error) {
          followed?.(error instanceof ShortlinkError ? error.code : 1);
          throw error;
        } finally {
          setRateLimitMetadata(trailers, response);
        }
      }),
      logger,
    ),
    getShortLink: governing(
      'GetShortLink',
      'get',
      (request: GetShortLinkRequest) => toLinkReferenceBody(request),
      async (caller, body) => ({ shortLink: toShortLinkMessage(await caller.links.get(body)) }),
    ),
    listShortLinks: governing(
      'ListShortLinks',
      'list',
      (request: ListShortLinksRequest) => toListBody(request),
      async (caller, body) => {
        const page = await caller.links.list(body);
        return {
          links: page.links.map(toShortLinkMessage),
          nextPageToken: page.next_page_token,
        };
      },
    ),
    disableShortLink: governing(
      'DisableShortLink',
      'disable',
      toDisableBody,
      async (caller, body) => ({
        shortLink: toShortLinkMessage(await caller.links.disable(body)),
      }),
    ),
    enableShortLink: governing(
      'EnableShortLink',
      'enable',
      toLinkReferenceBody,
      async (caller, body) => ({
        shortLink: toShortLinkMessage(await caller.links.enable(body)),
      }),
    ),
    updateShortLink: governing('UpdateShortLink', 'update', toUpdateBody, async (caller, body) => ({
      shortLink: toShortLinkMessage(await caller.links.update(body)),
    })),
    listShortLinkHistory: governing(
      'ListShortLinkHistory',
      'history',
      toHistoryBody,
      async (caller, body) => {
        const page = await caller.links.history(body);
        return {
          entries: page.entries.map(toHistoryEntryMessage),
          nextPageToken: page.next_page_token,
        };
      },
    ),
    getShortLinkVisits: governing(
      'GetShortLinkVisits',
      'visits',
      toVisitsBody,
      async (caller, body) => toVisitsMessage(await caller.links.visits(body)),
    ),
  };
}
