import type { RequestHandler } from 'express';
import { toShortlinkError, type Core, type ResponseInfo } from '../core';
import { sendError, sendSuccess } from './envelope';
import { idempotencyKeyOf, setIdempotencyHeaders } from './idempotency-headers';
import { setRateLimitHeaders } from './rate-limit-headers';

/** POST /api/create: hands the request to `links.create` and renders the outcome. */
export function createLinkHandler(core: Core): RequestHandler {
  const windowSeconds = core.deps.rateLimiter.windowSeconds;
  return async (req, res) => {
    const response: ResponseInfo = {};
    const caller = core.createCaller({
      authorization: req.headers.authorization,
      clientAddress: req.ip,
      idempotencyKey: idempotencyKeyOf(req.headers),
      response,
    });
    try {
      const link = await caller.links.create(req.body as never);
      setRateLimitHeaders(res, response, windowSeconds);
      setIdempotencyHeaders(res, response);
      sendSuccess(res, link);
    } catch (error) {
      const failure = toShortlinkError(error);
      if (failure.isServerFault) {
        req.log.error({ err: failure.cause ?? failure }, 'create failed');
      }
      setRateLimitHeaders(res, response, windowSeconds);
      setIdempotencyHeaders(res, response);
      sendError(res, failure);
    }
  };
}
