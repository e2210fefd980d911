import type { Response } from 'express';
import { rateLimitFields, type ResponseInfo } from '../core';

/** The contract's rate-limit fields as HTTP headers. */
export function setRateLimitHeaders(res: Response, info: ResponseInfo, now = Date.now()): void {
  for (const [name, value] of rateLimitFields(info, now)) {
    res.setHeader(name, value);
  }
}
