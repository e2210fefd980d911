import type { Request, RequestHandler, Response } from 'express';
import { ShortlinkError, type Core, type ResponseInfo, type ShortlinkMetrics } from '../core';
import { decodeJsonBody } from './body-decoding';
import { sendError, sendSuccess } from './envelope';
import { idempotencyKeyOf, setIdempotencyHeaders } from './idempotency-headers';
import { setRateLimitHeaders } from './rate-limit-headers';

/**
 * POST /api/create: decodes the body, hands the request to `links.create` and renders the
 * outcome. One handler rather than two route layers, so the measured time includes decoding.
 */
export function createLinkHandler(core: Core, metrics?: ShortlinkMetrics): RequestHandler {
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
    const caller = core.createUntypedCaller({
      authorization: req.headers.authorization,
      clientAddress: req.ip,
      idempotencyKey: idempotencyKeyOf(req),
      // A getter: the request's logger is made only when the core has a failure to log.
      get logger() {
        return req.log;
      },
      response,
    });
    try {
      const link = await caller.links.create(req.body);
      if (res.destroyed) {
        // The client went away while the link was made: it exists, but no one got the answer.
        if (!response.idempotentReplayed) created?.();
        return;
      }
      setRateLimitHeaders(res, response);
      setIdempotencyHeaders(res, response);
      sendSuccess(res, link);
      measured?.observe(0, startedAt);
      // A replayed answer names a link created by the first request, counted then.
      if (response.idempotentReplayed) replayed?.();
      else created?.();
    } catch (error) {
      // The caller rejects with ShortlinkErrors only; anything else is for the last resort.
      if (!(error instanceof ShortlinkError)) throw error;
      // A code the client never got is neither sent nor counted.
      if (res.destroyed) return;
      setRateLimitHeaders(res, response);
      setIdempotencyHeaders(res, response);
      sendError(res, error);
      measured?.observe(error.code, startedAt);
      if (response.idempotentReplayed) replayed?.();
    }
  }
}
