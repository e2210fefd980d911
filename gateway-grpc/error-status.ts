import type { Metadata, StatusObject } from '@grpc/grpc-js';
import type { ShortlinkError } from '../core';
import { Any } from './generated/google/protobuf/any';
import { ErrorInfo } from './generated/google/rpc/error_details';
import { Status } from './generated/google/rpc/status';
import { GRPC_STATUS_BY_REASON } from './status-by-reason';

export const ERROR_CODE_METADATA = 'shortlink-error-code';
const STATUS_DETAILS_METADATA = 'grpc-status-details-bin';
const ERROR_DOMAIN = 'shortlink';
const ERROR_INFO_TYPE_URL = 'type.googleapis.com/google.rpc.ErrorInfo';

/**
 * The rich error model (google.rpc.Status with one google.rpc.ErrorInfo), so clients of any
 * language can branch on `reason` without parsing messages.
 */
function statusDetails(grpcCode: number, failure: ShortlinkError): Buffer {
  const info = Buffer.from(
    ErrorInfo.encode({
      reason: failure.reason,
      domain: ERROR_DOMAIN,
      metadata: { code: String(failure.code) },
    }).finish(),
  );
  const status = Status.encode({
    code: grpcCode,
    message: failure.message,
    details: [Any.fromPartial({ typeUrl: ERROR_INFO_TYPE_URL, value: info })],
  }).finish();
  return Buffer.from(status);
}

/**
 * A core failure as the gRPC status the server sends: the contract's status, the messages as
 * details, and in the trailers (added to `trailers`, which may already hold rate-limit figures)
 * the spec's numeric code and the encoded google.rpc.Status.
 */
export function toGrpcStatus(failure: ShortlinkError, trailers: Metadata): StatusObject {
  const code = GRPC_STATUS_BY_REASON[failure.reason];
  trailers.set(ERROR_CODE_METADATA, String(failure.code));
  trailers.set(STATUS_DETAILS_METADATA, statusDetails(code, failure));
  return { code, details: failure.message, metadata: trailers };
}
