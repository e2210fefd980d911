import { ShortlinkError } from '../errors/shortlink-error';
import type { Middleware } from '../procedure/procedure';
import { isPlainObject } from '../procedure/raw-input';
import { UndecodableBody } from './undecodable-body';

/**
 * Stage "body" (CONTENT_TYPE_UNSUPPORTED, BODY_TOO_LARGE, BODY_INVALID): the input must have been
 * decoded into a JSON object.
 */
export const requireObjectBody: Middleware<unknown> = ({ rawInput, next }) => {
  if (rawInput instanceof UndecodableBody) {
    return Promise.reject(new ShortlinkError(rawInput.reason, rawInput.message));
  }
  if (!isPlainObject(rawInput)) {
    return Promise.reject(
      new ShortlinkError('BODY_INVALID', 'The request body must be a JSON object.'),
    );
  }
  return next();
};
