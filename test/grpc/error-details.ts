import type { Metadata } from '@grpc/grpc-js';
import { ErrorInfo } from '../../gateway-grpc/generated/google/rpc/error_details';
import { Status } from '../../gateway-grpc/generated/google/rpc/status';

export interface DecodedDetails {
  code: number;
  message: string;
  typeUrls: string[];
  errorInfo: ErrorInfo;
}

/** Decodes `grpc-status-details-bin` as a client would: google.rpc.Status, then its ErrorInfo. */
export function decodeStatusDetails(metadata: Metadata): DecodedDetails {
  const [raw] = metadata.get('grpc-status-details-bin');
  if (!Buffer.isBuffer(raw)) throw new Error('no grpc-status-details-bin in the trailers');
  const status = Status.decode(raw);
  const info = status.details.find(
    (any) => any.typeUrl === 'type.googleapis.com/google.rpc.ErrorInfo',
  );
  if (!info) throw new Error('no google.rpc.ErrorInfo in the status details');
  return {
    code: status.code,
    message: status.message,
    typeUrls: status.details.map((any) => any.typeUrl),
    errorInfo: ErrorInfo.decode(info.value),
  };
}
