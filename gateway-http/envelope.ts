import type { Response } from 'express';
import { ShortlinkError, type ErrorReason, type ShortLink } from '../core';
import { HTTP_STATUS_BY_REASON } from './status-by-reason';

/** `{data, code, errors}`: the body of every answer under /api. */
export function sendSuccess(res: Response, data: ShortLink): void {
  res.status(200).json({ data, code: 0, errors: [] });
}

export function sendError(res: Response, error: ShortlinkError): void {
  res
    .status(HTTP_STATUS_BY_REASON[error.reason])
    .json({ data: null, code: error.code, errors: error.messages });
}

export function sendReason(res: Response, reason: ErrorReason, message?: string): void {
  sendError(res, new ShortlinkError(reason, message));
}
