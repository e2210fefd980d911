import { ShortlinkError } from '../errors/shortlink-error';
import type { Middleware } from '../procedure/procedure';
import { UndecodableBody } from './undecodable-body';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field of a decoded body, read only when it is the object's own (never its prototype's). */
export function ownField(body: unknown, name: string): unknown {
  return isPlainObject(body) && Object.hasOwn(body, name) ? body[name] : undefined;
}

/** Stage "body" (codes 21, 22, 20): the input must have been decoded into a JSON object. */
export function requireObjectBody<TCtx>(): Middleware<TCtx, TCtx> {
  return ({ ctx, rawInput, next }) => {
    if (rawInput instanceof UndecodableBody) {
      return Promise.reject(new ShortlinkError(rawInput.reason, rawInput.message));
    }
    if (!isPlainObject(rawInput)) {
      return Promise.reject(
        new ShortlinkError('BODY_INVALID', 'The request body must be a JSON object.'),
      );
    }
    return next(ctx);
  };
}
