import type { Metadata, status } from '@grpc/grpc-js';
import { ErrorCode, type ErrorReason } from '../../core';
import type { CallOutcome } from '../support/grpc-call';
import { metadataText } from '../support/grpc-fixture';
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

/**
 * Asserts the whole error answer: status, details, `reason` (and its numeric code),
 * google.rpc.Status/ErrorInfo.
 * `messageCount` is how many messages the details hold, joined with `; `; a number for
 * messages that hold `; ` themselves would say nothing, so those are given as the text (or an
 * asymmetric matcher).
 */
export function expectFailure(
  outcome: CallOutcome<unknown>,
  reason: ErrorReason,
  grpcStatus: status,
  messageCount: number | { details: string } = 1,
): string[] {
  const code = ErrorCode[reason];
  const { error, response, status: callStatus } = outcome;
  expect(response).toBeUndefined();
  expect({
    code: error?.code,
    shortlinkCode: metadataText(callStatus.metadata, 'shortlink-error-code'),
  }).toEqual({
    code: grpcStatus,
    shortlinkCode: String(code),
  });
  const messages = error!.details.split('; ');
  if (typeof messageCount === 'number') expect(messages).toHaveLength(messageCount);
  else expect(error!.details).toEqual(messageCount.details);
  for (const message of messages) expect(message.length).toBeGreaterThan(0);
  const decoded = decodeStatusDetails(callStatus.metadata);
  expect(decoded).toEqual({
    code: grpcStatus,
    message: error!.details,
    typeUrls: ['type.googleapis.com/google.rpc.ErrorInfo'],
    errorInfo: { reason, domain: 'shortlink', metadata: { code: String(code) } },
  });
  return messages;
}
