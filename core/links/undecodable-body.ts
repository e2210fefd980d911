import { ERROR_CATALOGUE, type ErrorReason } from '../errors/error-catalogue';

/**
 * What a transport passes as the input when it could not decode the request body. The core
 * decides when this failure is reported (after the token and the rate limit, by precedence).
 */
export class UndecodableBody {
  constructor(
    readonly reason: Extract<
      ErrorReason,
      'BODY_INVALID' | 'BODY_TOO_LARGE' | 'CONTENT_TYPE_UNSUPPORTED'
    >,
    readonly message: string = ERROR_CATALOGUE[reason].message,
  ) {}
}
