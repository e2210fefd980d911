import type { Request, RequestHandler, Response } from 'express';
import { toShortlinkError, type Core, type ResponseInfo, type ShortlinkMetrics } from '../core';
import { decodeJsonBody } from './body-decoding';
import { sendError, sendSuccess } from './envelope';
import { idempotencyKeyOf, setIdempotencyHeaders } from './idempotency-headers';
import { setRateLimitHeaders } from './rate-limit-headers';

/**
 * POST /api/create: decodes the body, hands the request to `links.create` and renders the
 * outcome. One handler rather than two route layers, so the measured time includes decoding.
 */
export function createLinkHandler(core: Core, metrics?: ShortlinkMetrics): RequestHandler {
  const windowSeconds = core.deps.rateLimiter.windowSeconds;
  const measured = metrics?.operation('rest', 'create');
  const created = metrics?.linkCreatedOn('rest');
  const replayed = metrics?.replayedOn('rest');
  return (req, res, next) => {
    const startedAt = measured ? performance.now() : 0;
    // A failure to answer at all goes to the app's last-resort handler, as express would do.
    decodeJsonBody(req, res, () => {
      answer(req, res, startedAt).catch(next);
    });
  };
  async function answer(req: Request, res: Response, startedAt: number): Promise<void> {
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
      measured?.observe(0, startedAt);
      // A replayed answer names a link created by the first request, counted then.
      if (response.idempotentReplayed) replayed?.();
      else created?.();
    } catch (error) {
      const failure = toShortlinkError(error);
      if (failure.isServerFault) {
        req.log.error({ err: failure.cause ?? failure }, 'create failed');
      }
      setRateLimitHeaders(res, response, windowSeconds);
      setIdempotencyHeaders(res, response);
      sendError(res, failure);
      measured?.observe(failure.code, startedAt);
      if (response.idempotentReplayed) replayed?.();
    }
  }
}
