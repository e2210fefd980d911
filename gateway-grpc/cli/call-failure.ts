import { status, type ServiceError } from '@grpc/grpc-js';
import { ErrorInfo } from '../generated/google/rpc/error_details';
import { Status } from '../generated/google/rpc/status';
import { ERROR_CODE_METADATA } from '../error-status';

const STATUS_NAMES = new Map(Object.entries(status).map(([name, code]) => [code, name]));
const ERROR_INFO_TYPE_URL = 'type.googleapis.com/google.rpc.ErrorInfo';
/** Headers of every answer, and the code already given on its own. */
const NOT_SHOWN = new Set(['content-type', 'date', ERROR_CODE_METADATA]);

/** The ErrorInfo reason of a failure's google.rpc.Status detail, when it has one. */
function reasonOf(error: ServiceError): string | undefined {
  const [details] = error.metadata?.get('grpc-status-details-bin') ?? [];
  if (!Buffer.isBuffer(details)) return undefined;
  try {
    const info = Status.decode(details).details.find(
      (detail) => detail.typeUrl === ERROR_INFO_TYPE_URL,
    );
    return info ? ErrorInfo.decode(info.value).reason : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A failed call as JSON: the gRPC status (name and number), the service's numeric code and
 * reason when it sent them, the message, and the other text trailers (rate-limit figures,
 * `retry-after`); the binary google.rpc.Status is shown as its reason.
 */
export function describeFailure(error: ServiceError): Record<string, unknown> {
  const [code] = error.metadata?.get(ERROR_CODE_METADATA) ?? [];
  const reason = reasonOf(error);
  const trailers = Object.fromEntries(
    Object.entries(error.metadata?.getMap() ?? {}).filter(
      ([key, value]) => !key.endsWith('-bin') && !NOT_SHOWN.has(key) && typeof value === 'string',
    ),
  );
  return {
    status: STATUS_NAMES.get(error.code) ?? String(error.code),
    grpcStatus: error.code,
    ...(code !== undefined && { code: Number(code) }),
    ...(reason !== undefined && { reason }),
    message: error.details,
    ...(Object.keys(trailers).length > 0 && { trailers }),
  };
}
