import type { RequestHandler } from 'express';
import { ShortlinkError, type Core, type ResponseInfo } from '../core';
import { sendError, sendSuccess } from './envelope';
import { idempotencyKeyOf, setIdempotencyHeaders } from './idempotency-headers';
import { setRateLimitHeaders } from './rate-limit-headers';

/** POST /api/create: hands the request to `links.create` and renders the outcome. */
export function createLinkHandler(core: Core): RequestHandler {
  return async (req, res) => {
    const response: ResponseInfo = {};
    const caller = core.createUntypedCaller({
      authorization: req.headers.authorization,
      clientAddress: req.ip,
      idempotencyKey: idempotencyKeyOf(req.headers),
      // A getter: the request's logger is made only when the core has a failure to log.
      get logger() {
        return req.log;
      },
      response,
    });
    try {
      const link = await caller.links.create(req.body);
      setRateLimitHeaders(res, response);
      setIdempotencyHeaders(res, response);
      sendSuccess(res, link);
    } catch (error) {
      // The caller rejects with ShortlinkErrors only; anything else is for the last resort.
      if (!(error instanceof ShortlinkError)) throw error;
      setRateLimitHeaders(res, response);
      setIdempotencyHeaders(res, response);
      sendError(res, error);
    }
  };
}
